# source: https://github.com/jax-ml/jax/issues/8299
# observed on jax 0.10.2 CPU: with the number of stored elements given as a Python int
#   (`nse`, the upper bound on A's nonzeros that the thread's answer asks for under jit),
#   BCOO.fromdense sizes its buffers statically and jax.jit(test_bcoo) returns 4.0 like the
#   eager call. The user's function with nse=4 for the 4x4 identity; added: the imports
#   of jax and jax.numpy, and the __main__ check.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax.experimental import sparse
jsum = sparse.sparsify(jnp.sum)

def test_bcoo(A):
    B  = sparse.BCOO.fromdense(A, nse=4)
    return jsum(B)

print(test_bcoo(jnp.eye(4)))

test_bcoo_jit = jax.jit(test_bcoo)
print(test_bcoo_jit(jnp.eye(4)))


if __name__ == "__main__":
    assert float(test_bcoo_jit(jnp.eye(4))) == 4.0
    assert float(test_bcoo_jit(2.0 * jnp.eye(4))) == 8.0
