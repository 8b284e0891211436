# source: https://github.com/giorgiofacelli/VMC_jax/blob/3e9faabef3e1e9afe650f58488cc1f16fd67056e/sampling.py
#   (Variational Monte Carlo with JAX: the Metropolis-Hastings sampler of the trial wavefunction)
# observed on jax 0.10.2 CPU: kernel_scan draws the acceptance threshold `e` from subkey2
#   and hands that same subkey2 back as the chain's next key, so every step after the first
#   splits a key the previous step already consumed (the proposal noise of step t+1 and
#   the threshold of step t come from one key). With `jax_debug_key_reuse` on and a typed
#   key, sample(...) run under jax.disable_jit() raises KeyReuseError "Previously-consumed
#   key passed to random_split" at the split of kernel_scan (__main__ checks the frame); under
#   jit the checker does not follow the consumed key out of kernel_scan and stays silent,
#   though the values drawn are the same.
#   Added: a Gaussian trial density `prob` for the harmonic oscillator (the repository builds
#   its densities in neural_network.py / the notebooks) and the __main__ block. Left out:
#   the NN copies kernel_scan_NN / sample_NN / sample_mapped_NN (the same code with a reshape)
#   and the unused matplotlib import.
# gap: other
import jax
from jax import numpy as jnp
from jax import random
from functools import partial
import numpy as np

@partial(jax.jit, static_argnums=(4,))
def kernel_scan(key, xold, eps, theta, prob):

    subkey1, subkey2 = jax.random.split(key)  # expect: JIT502
    a = eps*jax.random.normal(subkey1, shape = xold.shape, dtype = np.float64)
    x = xold + a
    R = prob(x, theta)/prob(xold, theta)
    e = jax.random.uniform(subkey2, dtype=np.float64)

    xnew = jnp.where(R > e, x, xold)
    
    return xnew, subkey2, R > e


def sample(key, N, n_particles, dim, n_sweeps, eps, theta, prob):

    key, subkey = jax.random.split(key)
    #x0 = jax.random.uniform(key, shape=(n_particles*dim,), minval=-0.05, maxval=0.05, dtype=np.float64)
    x0 = jax.random.normal(key, shape=(n_particles*dim,), dtype = np.float64)

    def loop_scan(carry, i):

        xold, key, accept = carry
        xnew, key, cond = kernel_scan(key, xold, eps, theta, prob)
        accept += cond 
        return (xnew, key, accept), xnew
    
    steps = jnp.arange(0,N,1)
    accept = 0.0
    (xnew, key, accept), res = jax.lax.scan(loop_scan, (x0, subkey, accept), steps)
    res = res[2000::n_sweeps]

    return res, accept/N


sample_mapped = jax.vmap(sample, in_axes=(0, None, None, None, None, None, None, None), out_axes=(0))


def prob(x, theta):  # added: |psi|^2 of a Gaussian trial wavefunction
    return jnp.exp(-2.0 * theta * jnp.sum(x ** 2))


if __name__ == "__main__":
    import traceback
    res, acc = sample(random.PRNGKey(0), 2100, 2, 1, 10, 1.0, 0.5, prob)
    print(res.shape, acc)
    # the values are those of the jitted run; without jit JAX's key-reuse checker can
    # follow the key that kernel_scan returns into the next step
    jax.config.update("jax_debug_key_reuse", True)
    try:
        with jax.disable_jit():
            sample(random.key(0), 2100, 2, 1, 10, 1.0, 0.5, prob)
        raise AssertionError("no key reuse was reported")
    except jax.errors.KeyReuseError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        # observed: line 25 splits the subkey2 that the previous step drew `e` from
        assert str(e).startswith("Previously-consumed key passed to random_split"), e
        assert frames[-1].lineno == 25, frames
