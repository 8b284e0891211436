# source: https://github.com/pyro-ppl/numpyro/issues/602
# observed on jax 0.10.2 CPU: with numpyro 0.22 runs clean: `Adam.init` now returns the step
#   count as a weakly typed int32 array, so `my_fn` traces once over the ten steps (the double
#   compilation the issue reported is gone). The global counter is the reporter's deliberate
#   trace counter; the final assert is the reporter's, moved into the __main__ block.
# gap: other
import jax
import jax.numpy as np

from numpyro.optim import Adam

adam = Adam(1e-3)
state = adam.init(np.zeros(10))

my_fn_calls = 0

@jax.jit
def my_fn(state, g):
    global my_fn_calls
    my_fn_calls += 1

    state = adam.update(g, state)
    return state

rng = jax.random.PRNGKey(0)

for i in range(10):
    rng_i = jax.random.fold_in(rng, i)
    g = jax.random.normal(rng_i, (10,))
    state = my_fn(state, g)

if __name__ == "__main__":
    assert(my_fn_calls == 1) # fails as my_fn_calls is 2
