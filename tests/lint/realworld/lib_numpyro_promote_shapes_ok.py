# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/distributions/util.py
#   (_reshape and promote_shapes, numpyro 0.22.0 as released; copied unchanged)
# observed on jax 0.10.2 CPU: runs clean under jit: every branch is on static facts
#   (len of args, jnp.shape, jnp.ndim, isinstance).
# gap: types
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _reshape(x, shape):
    if isinstance(x, (int, float, np.ndarray, np.generic)):
        return np.reshape(x, shape)
    else:
        return jnp.reshape(x, shape)


def promote_shapes(*args, shape=(), return_shapes: bool = False):
    """
    Promote the shapes of arrays so they have the same number of dimensions and are
    broadcastable.

    :param *args: Arrays to promote.
    :param shape: Leading shape to add to arrays.
    :param return_shapes: Return the shapes of arrays instead of the shape-promoted
        arrays.
    """
    # adapted from lax.lax_numpy
    if len(args) < 2 and not shape:
        return [jnp.shape(arg) for arg in args] if return_shapes else args
    else:
        shapes = [jnp.shape(arg) for arg in args]
        num_dims = len(lax.broadcast_shapes(shape, *shapes))
        shapes = [(1,) * (num_dims - len(shape)) + shape for shape in shapes]
        if return_shapes:
            return shapes
        return [
            _reshape(arg, shape) if jnp.ndim(arg) < len(shape) else arg
            for arg, shape in zip(args, shapes)
        ]


if __name__ == "__main__":
    loc, scale = jax.jit(lambda a, b: promote_shapes(a, b))(jnp.zeros(3), jnp.ones((2, 3)))
    print(loc.shape, scale.shape)
    print(jax.jit(lambda a: promote_shapes(a, shape=(2, 3)))(jnp.zeros(3)))
