# source: https://github.com/jax-ml/jax/issues/480
# observed on jax 0.10.2 CPU: under jit, n_max = np.max(n) is a tracer, so the shape
#   `shape + (n_max,)` handed to random.uniform is not concrete and the call raises
#   TypeError ("Shapes must be 1D sequences of concrete values of integer type"), the
#   failure the report describes; np.arange(n_max) three lines later repeats the bug (a
#   traced length) and is never reached. Added: the imports (`np` is jax.numpy, as in
#   numpyro), stand-ins for numpyro's `_promote_shapes`/`promote_shapes` helpers, and the
#   jitted call at the end.
# gap: omnistaging
import jax
import jax.numpy as np
from jax import lax, random


def promote_shapes(*args):  # stand-in for numpyro.distributions.util.promote_shapes
    num_dims = max(np.ndim(arg) for arg in args)
    return [np.reshape(arg, (1,) * (num_dims - np.ndim(arg)) + np.shape(arg)) for arg in args]


_promote_shapes = promote_shapes


def binomial(key, p, n=1, shape=()):
    p, n = _promote_shapes(p, n)
    shape = shape or lax.broadcast_shapes(np.shape(p), np.shape(n))
    n_max = np.max(n)
    uniforms = random.uniform(key, shape + (n_max,))  # expect: JIT404
    n = np.expand_dims(n, axis=-1)
    p = np.expand_dims(p, axis=-1)
    mask = (np.arange(n_max) > n).astype(uniforms.dtype)  # tolerate: JIT404
    p, uniforms = promote_shapes(p, uniforms)
    return np.sum(mask * lax.lt(uniforms, p), axis=-1, keepdims=False)


print(binomial(random.PRNGKey(0), np.array([0.3, 0.6]), np.array([10, 20])))
jax.jit(binomial)(random.PRNGKey(0), np.array([0.3, 0.6]), np.array([10, 20]))
