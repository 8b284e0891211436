# source: https://github.com/jax-ml/jax/issues/575
# observed on jax 0.10.2 CPU: sample(factors) raises TracerBoolConversionError at
#   `if dE < 0:`: dE is computed from the traced `factors` and the traced state.
#   `jax.ops.index_update(state, i, v)` (removed) is spelled `state.at[i].set(v)`; the
#   list given to `np.sum` (jax.numpy no longer takes lists) is wrapped in `np.array`; the
#   imports and the `factors` input (one weight per marginal, 55 of them) are added. The
#   second `if` (rand < exp(-dE)) branches on a tracer too; the first one raises before it,
#   and before the 100 x 10 Python loop iterations are all unrolled into one program.
# gap: other
import itertools as it
from functools import partial

import jax.numpy as np
from jax import jit, random

N = 10

marg_1 = lambda i,x:x[i]
marg_2 = lambda i,j,x:x[i]*x[j]

marg_1s = [jit(partial(marg_1,i)) for i in range(N)]
marg_2s = [jit(partial(marg_2,i,j)) for i,j in list(it.combinations(range(N),r=2))]
funcs = marg_1s+marg_2s

@jit
def calc_e(factors,word):
    return np.sum(np.array([factor*func(word) for factor,func in zip(factors,funcs)]))

@jit
def sample(factors,N=10,seed=0,n_samps=100):
    key = random.PRNGKey(seed)
    key, subkey = random.split(key)
    
    state = random.randint(subkey,minval=0,maxval=2, shape=(N,))
    all_states = []
    
    for _ in range(n_samps):
        all_states.append(state)
        for i in range(N):  # tolerate: JIT303
            #flip sign
            state_flipped = state.at[i].set(1-state[i])
            #calc energy difference
            dE = calc_e(factors,state_flipped)-calc_e(factors,state)
            if dE < 0:  # expect: JIT101
                state = state_flipped
            else:
                key, subkey = random.split(key)
                rand=random.uniform(subkey,shape=(1,))
                if rand < np.exp(-dE):  # tolerate: JIT101
                    state = state_flipped
    return all_states


factors = random.normal(random.PRNGKey(1), (len(funcs),))
sample(factors)
