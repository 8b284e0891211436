# source: https://github.com/pyro-ppl/numpyro/pull/376 ("improve binom/multinomial sampling":
#   the binomial sampler the pull request replaced, numpyro/distributions/util.py at its parent
#   commit 6098073f6250ac8229eb911de660bf4692a512d6; the PR reports 129 ms a call before it)
# observed on jax 0.10.2 CPU: `_binomial` makes the count `n` a static argument, and
#   `binomial` passes it as `device_get(n)`, a NumPy array when n is an array: the call raises
#   ValueError "Non-hashable static arguments are not supported" (older JAX hashed such arrays by
#   id, so every call recompiled). With a hashable Python int n, the trace reaches
#   `n_max = int(np.max(n))`: np is jax.numpy, so np.max(n) is a tracer under jit and int()
#   raises ConcretizationTypeError. Changed: `from jax.util import partial` is
#   functools.partial; added: the __main__ block, which catches both errors.
# gap: static-hashability
from functools import partial

from jax import device_get, jit, lax, random
import jax.numpy as np


# TODO: inefficient implementation; jit currently fails due to
# dynamic size of random.uniform.
@partial(jit, static_argnums=(2, 3))
def _binomial(key, p, n, shape):
    p, n = promote_shapes(p, n)
    shape = shape or lax.broadcast_shapes(np.shape(p), np.shape(n))
    n_max = int(np.max(n))  # expect: JIT401
    uniforms = random.uniform(key, shape + (n_max,))
    n = np.expand_dims(n, axis=-1)
    p = np.expand_dims(p, axis=-1)
    mask = (np.arange(n_max) < n).astype(uniforms.dtype)
    p, uniforms = promote_shapes(p, uniforms)
    return np.sum(mask * lax.lt(uniforms, p), axis=-1, keepdims=False)


def binomial(key, p, n=1, shape=()):
    n = device_get(n)
    return _binomial(key, p, n, shape)  # expect: JIT302


def promote_shapes(*args, shape=()):
    # adapted from lax.lax_numpy
    if len(args) < 2 and not shape:
        return args
    else:
        shapes = [np.shape(arg) for arg in args]
        num_dims = len(lax.broadcast_shapes(shape, *shapes))
        return [lax.reshape(arg, (1,) * (num_dims - len(s)) + s)
                if len(s) < num_dims else arg for arg, s in zip(args, shapes)]


if __name__ == "__main__":
    import traceback

    import jax

    def failing_line(call):
        try:
            call()
        except Exception as e:  # noqa: BLE001
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return type(e), frames[-1].lineno
        raise AssertionError("no error")

    key = random.PRNGKey(0)
    # observed: line 35 passes the NumPy array n as a static argument: ValueError
    err, line = failing_line(lambda: binomial(key, 0.5, np.array(10), shape=(1000,)))
    assert err is ValueError and line == 35, (err, line)
    # observed: line 24 converts the traced np.max(n) with int(): ConcretizationTypeError
    err, line = failing_line(lambda: binomial(key, 0.5, 10, shape=(1000,)))
    assert issubclass(err, jax.errors.ConcretizationTypeError) and line == 24, (err, line)
