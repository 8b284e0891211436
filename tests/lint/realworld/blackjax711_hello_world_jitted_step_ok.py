# source: https://github.com/blackjax-devs/blackjax/pull/711 (the fixed "Hello World" of
#   docs/index.md: the loop calls the jitted `step`, not `nuts.step`)
# observed on jax 0.10.2 CPU: runs clean; `step` is jitted once outside the loop and compiles
#   once, and every iteration folds its index into the key, so no key is consumed twice.
# gap: per-call-recompile
# added: a stand-in for `blackjax.nuts(logdensity_fn, step_size, inverse_mass_matrix)` (blackjax
#   is not installed: `init` returns the position as float32 arrays, `step` makes a Metropolis
#   random-walk move from the key), a fixed NumPy seed, and the `__main__` block's checks.
import types

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
import numpy as np
from jax.flatten_util import ravel_pytree


def _nuts_standin(logdensity_fn, step_size, inverse_mass_matrix):
    def step(rng_key, state):
        flat, unravel = ravel_pytree(state)
        key_move, key_accept = jax.random.split(rng_key)
        proposal = unravel(flat + step_size * jnp.sqrt(inverse_mass_matrix)
                           * jax.random.normal(key_move, flat.shape))
        log_ratio = logdensity_fn(proposal) - logdensity_fn(state)
        accept = jnp.log(jax.random.uniform(key_accept)) < log_ratio
        new_state = jax.tree.map(lambda p, s: jnp.where(accept, p, s), proposal, state)
        return new_state, accept

    def init(position):
        return jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), position)

    return types.SimpleNamespace(init=init, step=step)


blackjax = types.SimpleNamespace(nuts=_nuts_standin)
np.random.seed(0)

observed = np.random.normal(10, 20, size=1_000)
def logdensity_fn(x):
    logpdf = stats.norm.logpdf(observed, x["loc"], x["scale"])
    return jnp.sum(logpdf)

# Build the kernel
step_size = 1e-3
inverse_mass_matrix = jnp.array([1., 1.])
nuts = blackjax.nuts(logdensity_fn, step_size, inverse_mass_matrix)

# Initialize the state
initial_position = {"loc": 1., "scale": 2.}
state = nuts.init(initial_position)

# Iterate
rng_key = jax.random.key(0)
step = jax.jit(nuts.step)
for i in range(1_000):
    nuts_key = jax.random.fold_in(rng_key, i)
    state, _ = step(nuts_key, state)

if __name__ == "__main__":
    assert step._cache_size() == 1
    assert all(bool(jnp.isfinite(v)) for v in jax.tree.leaves(state))
    with jax.debug_key_reuse(True):
        for i in range(1_000, 1_003):  # indices the loop above did not use
            nuts_key = jax.random.fold_in(rng_key, i)
            state, _ = step(nuts_key, state)
