# source: https://github.com/jax-ml/jax/issues/13340
# observed on jax 0.10.2 CPU: jit(f)(A) returns BCOO(float32[3, 3], nse=3) like the eager
#   call: n comes from A.shape, a Python int under jit (the TracerArrayConversionError of
#   the report came from sparse.eye's implementation, since fixed). Added: the prints.
# gap: omnistaging
from jax import jit, numpy as jnp
from jax.experimental.sparse import eye


def f(A):
    n = A.shape[0]
    return eye(n)


A = jnp.ones([3, 3])
print(f(A))
# BCOO(float32[3, 3], nse=3)
print(jit(f)(A))
# TracerArrayConversionError ...
