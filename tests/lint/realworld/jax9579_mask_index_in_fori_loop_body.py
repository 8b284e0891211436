# source: https://github.com/jax-ml/jax/issues/9579 (the reporter's code; the thread's text
#   stops after the fori_loop in cosInterpolateRandomized, so `return alpha` and the inputs
#   in the last lines are added)
# observed on jax 0.10.2 CPU: NonConcreteBooleanIndexError at `alpha[mask]` in the
#   fori_loop body: the mask is traced, so the selected slice has no static size.
# gap: other
from jax import random 
import jax
import jax.numpy as jnp

def biject_alpha(idx, val):
    alpha, i, key = val
    # hyperparameters for randomisation
    cdf_bins=20

    key, consume = random.split(key)
    samples = random.uniform(consume, (cdf_bins-1,), maxval=1.0)
    samples = jnp.hstack((jnp.array([0.0]), samples))
    montonous = jnp.cumsum(samples)
    cdf = montonous/montonous[-1]

    # idx of first occurenece
    mask = (i-1) == idx
    start_idx = jnp.select(mask, jnp.arange(len(mask)))

    # biject slice
    alpha_i = alpha[mask]  # expect: JIT403
    bijected_alpha = cdf[(alpha_i//(1/cdf_bins)).astype(int)]
    alpha = jax.lax.dynamic_update_slice(alpha, bijected_alpha, start_idx)
    return (alpha, i, key)

def cosInterpolateRandomized(x, xp, fp, consume):
    i = jnp.clip(jnp.searchsorted(xp, x, side='right'), 1, len(xp) - 1)
    dx = xp[i] - xp[i - 1]
    alpha = (x - xp[i - 1])/dx 
    alpha, _, _ = jax.lax.fori_loop(0, len(xp)-1, biject_alpha, (alpha, i, consume))
    return alpha

xp = jnp.linspace(0.0, 1.0, 5)
cosInterpolateRandomized(jnp.linspace(0.0, 1.0, 11), xp, jnp.sin(xp), random.PRNGKey(0))
