# source: https://github.com/jcmgray/autoray/blob/0a8dda63e888957bbd94abf6f9516fc320449f1f/autoray/autoray.py
#   (JaxDefaultRNG, added in answer to autoray#27, with its test test_jax_jit_random from
#   tests/test_random.py at 71c771b)
# observed on jax 0.10.2 CPU: runs clean. The generator is built inside the jitted function
#   from the traced `seed` argument, so its key is traced and its `self.key` writes stay on
#   an object that lives only in the trace; the same seed gives the same draws and another
#   seed different ones. The methods the test does not use are left out;
#   `ar.autojit(backend="jax")` is spelled jax.jit, `ar.do("random.default_rng", seed)`
#   jax_default_rng(seed), `ar.do("to_numpy", x)` np.asarray(x) and `ar.do("array", 42)`
#   jnp.array(42) (autoray is not installed).
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
import numpy as np


def _handle_size_to_shape(size=None):
    if size is None:
        return ()
    try:
        return tuple(size)
    except TypeError:
        return (size,)


class JaxDefaultRNG:
    """Stateful but deterministic random number generator for JAX following
    numpy's Generator API, compatible with `jax.jit`.
    """

    def __init__(self, seed, **kwargs):
        import jax

        self.jax = jax
        self.key = jax.random.key(seed, **kwargs)

    def normal(self, loc=0.0, scale=1.0, size=None, **kwargs):
        self.key, subkey = self.jax.random.split(self.key)
        shape = _handle_size_to_shape(size)
        x = self.jax.random.normal(subkey, shape=shape, **kwargs)
        if scale != 1.0:
            x *= scale
        if loc != 0.0:
            x += loc
        return x

    def random(self, size=None, **kwargs):
        return self.uniform(size=size, **kwargs)

    def uniform(self, low=0.0, high=1.0, size=None, **kwargs):
        self.key, subkey = self.jax.random.split(self.key)
        shape = _handle_size_to_shape(size)
        return self.jax.random.uniform(
            subkey, shape=shape, minval=low, maxval=high, **kwargs
        )


def jax_default_rng(seed, **kwargs):
    if isinstance(seed, JaxDefaultRNG):
        return seed
    return JaxDefaultRNG(seed, **kwargs)


def test_jax_jit_random():

    @jax.jit
    def f(seed):
        rng = jax_default_rng(seed)
        return rng.normal(size=(3, 4))

    x1 = np.asarray(f(jnp.array(42)))
    x2 = np.asarray(f(jnp.array(42)))
    assert np.allclose(x1, x2)
    x3 = np.asarray(f(jnp.array(43)))
    assert not np.allclose(x1, x3)


if __name__ == "__main__":
    test_jax_jit_random()
