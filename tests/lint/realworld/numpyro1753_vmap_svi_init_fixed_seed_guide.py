# source: https://github.com/pyro-ppl/numpyro/issues/1753
# observed on jax 0.10.2 CPU: with numpyro 0.22 both `jax.vmap(svi.init)(keys)` calls run (the
#   UnexpectedTracerError of the report is gone), but the reporter vmaps `svi.init` "to
#   parallelize model training across multiple initializations", and the guide's model is
#   seeded with the constant `rng_seed=0` (lines 28 and 41): the key each vmapped init gets
#   never reaches the blocked model, so every initialization draws the same `a_auto_loc`
#   (numpyro#1657: "the blocked program is no longer stochastic"); line 44 also hands the
#   second experiment the keys the first one consumed (jax_debug_key_reuse raises on them).
#   The __main__ block is added.
# gap: other
import jax
import jax.random as random

import numpyro
import numpyro.distributions as dist
from numpyro.handlers import block, seed
from numpyro.infer import SVI, TraceEnum_ELBO
from numpyro.infer.autoguide import AutoDelta

def model():
    a = numpyro.sample('a', dist.Normal(0, 1))
    b = numpyro.sample('b', dist.Normal(0, 1))

# -- this works --
keys = random.split(random.PRNGKey(0), 2)

optimizer = numpyro.optim.Adam(step_size=.01)
guide = AutoDelta(block(seed(model, rng_seed=0), hide=['b']))  # expect: JIT502
svi = SVI(model, guide, optimizer, loss=TraceEnum_ELBO())

mapped_state = jax.vmap(svi.init)(keys)

def model_w_deterministic():
    a = numpyro.sample('a', dist.Normal(0, 1))
    b = numpyro.sample('b', dist.Normal(0, 1))
    
    numpyro.deterministic('test', a)

# -- this fails --
optimizer = numpyro.optim.Adam(step_size=.01)
guide = AutoDelta(block(seed(model_w_deterministic, rng_seed=0), hide=['b']))  # expect: JIT502
svi = SVI(model_w_deterministic, guide, optimizer, loss=TraceEnum_ELBO())

mapped_state = jax.vmap(svi.init)(keys)  # expect: JIT502

if __name__ == "__main__":
    first_svi = SVI(model, AutoDelta(block(seed(model, rng_seed=0), hide=['b'])),  # tolerate: JIT502
                    optimizer, loss=TraceEnum_ELBO())
    first_state = jax.vmap(first_svi.init)(keys)  # tolerate: JIT502
    for s, state in ((first_svi, first_state), (svi, mapped_state)):
        locs = s.get_params(state)['a_auto_loc']
        # observed: line 28 and line 41 give both keys the same initial location
        assert locs.shape == (2,) and float(locs[0]) == float(locs[1]), locs
    # observed: line 44 initialises the second experiment from the keys the first one consumed
    assert (first_state.rng_key == mapped_state.rng_key).all()
