# source: https://github.com/fermiflow/CoulombGas/blob/001c9840f520711db7919f88aa84dd3b2b614841/MCMC.py
#   (variational free-energy study of the 2D electron gas with a neural canonical
#   transformation: the Metropolis sampler of electron coordinates used by VMC.py)
# observed on jax 0.10.2 CPU: mcmc jits with the log-density `logp_fn` static and runs
#   the chain in lax.fori_loop, splitting the carried key into a fresh proposal key and
#   acceptance key each step; two chains with one logp_fn compile once, the acceptance test
#   is a jnp.where on the batch, and a harmonic-oscillator chain relaxes to the expected
#   <x^2>. Changed: `from jax.config import config` (removed from JAX) is spelled
#   jax.config.update. Added: a Gaussian batch log-density and the __main__ block.
# gap: other
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from jax import lax

from functools import partial

@partial(jax.jit, static_argnums=0)
def mcmc(logp_fn, x_init, key, mc_steps, mc_stddev=0.02):
    """
        Markov Chain Monte Carlo sampling algorithm.

    INPUT:
        logp_fn: callable that evaluate log-probability of a batch of configuration x.
            The signature is logp_fn(x), where x has shape (batch, n, dim).
        x_init: initial value of x, with shape (batch, n, dim).
        key: initial PRNG key.
        mc_steps: total number of Monte Carlo steps.
        mc_stddev: standard deviation of the Gaussian proposal.

    OUTPUT:
        x: resulting batch samples, with the same shape as `x_init`.
    """
    def step(i, state):
        x, logp, key = state
        key, key_proposal, key_accept = jax.random.split(key, 3)

        x_proposal = x + mc_stddev * jax.random.normal(key_proposal, x.shape)
        logp_proposal = logp_fn(x_proposal)
        ratio = jnp.exp(logp_proposal - logp)
        accept = jax.random.uniform(key_accept, ratio.shape) < ratio

        x_new = jnp.where(accept[:, None, None], x_proposal, x)
        logp_new = jnp.where(accept, logp_proposal, logp)
        return x_new, logp_new, key
    
    logp_init = logp_fn(x_init)
    x, logp, key = lax.fori_loop(0, mc_steps, step, (x_init, logp_init, key))
    return x


def logp_gaussian(x):  # added: |psi|^2 of the harmonic-oscillator ground state, per walker
    return -(x ** 2).sum(axis=(-2, -1))


if __name__ == "__main__":
    import numpy as np
    batch, n, dim = 4096, 2, 2
    key = jax.random.PRNGKey(42)
    key, key_init = jax.random.split(key)
    x = jax.random.uniform(key_init, (batch, n, dim), minval=-3.0, maxval=3.0)
    key, key_mc = jax.random.split(key)
    x = mcmc(logp_gaussian, x, key_mc, 200, 0.5)
    key, key_mc = jax.random.split(key)
    x2 = mcmc(logp_gaussian, x, key_mc, 200, 0.5)
    assert mcmc._cache_size() == 1, mcmc._cache_size()  # one compile for both chains
    # exp(-x^2) has variance 1/2 per coordinate
    var = float(jnp.mean(x2 ** 2))
    assert abs(var - 0.5) < 0.03, var
    assert not np.allclose(np.asarray(x), np.asarray(x2))
    print("<x^2> =", var)
