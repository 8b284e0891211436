# source: https://github.com/jax-ml/jax/issues/8299
# observed on jax 0.10.2 CPU: test_bcoo(jnp.eye(4)) runs eagerly and prints 4.0, then
#   jax.jit(test_bcoo) raises ConcretizationTypeError in sparse.BCOO.fromdense(A): without
#   `nse` it counts the nonzero entries of A to size the sparse buffers, and under jit A is
#   a tracer ("BCOO.fromdense cannot be called inside a function which is jittable").
#   Added: the imports of jax and jax.numpy.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax.experimental import sparse
jsum = sparse.sparsify(jnp.sum)

def test_bcoo(A):
    B  = sparse.BCOO.fromdense(A)  # expect: JIT403
    return jsum(B)

print(test_bcoo(jnp.eye(4)))

test_bcoo_jit = jax.jit(test_bcoo)
print(test_bcoo_jit(jnp.eye(4)))
