import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def shape_logic(x, y):
    if jnp.isscalar(x) or jnp.ndim(x) == 0:
        x = x[None]
    if x.shape[-1] == jnp.shape(y)[-1] and len(x.shape) == 2:
        x = x + y
    n = jnp.size(x)
    acc = jnp.zeros(())
    for i in range(min(n, 4)):
        acc = acc + x.ravel()[i]
    if jnp.issubdtype(x.dtype, jnp.floating):
        acc = acc * float(jnp.finfo(jnp.float32).eps)
    total = int(np.prod(x.shape))
    if x is y or isinstance(y, (list, tuple)):
        return acc
    return acc / total + jnp.zeros(x.shape[:-1] + (4,)).sum()
