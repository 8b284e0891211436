# source: https://github.com/patrick-kidger/lineax/issues/101 (the reporter's three functions)
# observed on jax 0.10.2 CPU (lineax 0.1.1, equinox 0.13.8): all three run clean under
#   jax.jit(jax.grad(...)) and agree: the vmap over right-hand sides (test1, which raised a
#   TypeError in the report), the Python loop over the 128 columns of the
#   NumPy constant B (test2, unrolled at trace time, each result written back with .at[].set)
#   and the lax.scan (test3). Added: the __main__ block that calls them.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np
import lineax as lx

N = 8
M = 16
K = 128

np.random.seed(42)
A = np.random.randn(M, N)
B = np.random.randn(M, K)

@jax.jit
@jax.grad
def test1(A):
  op = lx.MatrixLinearOperator(A)
  return jax.vmap(lambda b: lx.linear_solve(op, b, lx.AutoLinearSolver(well_posed=False)).value)(B.T).mean()

@jax.jit
@jax.grad
def test2(A):
  op = lx.MatrixLinearOperator(A)
  result = jnp.empty((B.shape[1], A.shape[1]), dtype=jnp.float32)
  for i, b in enumerate(B.T):
    result = result.at[i, :].set(lx.linear_solve(op, b, lx.AutoLinearSolver(well_posed=False)).value)
  return result.mean()

@jax.jit
@jax.grad
def test3(A):
  op = lx.MatrixLinearOperator(A)
  result = jax.lax.scan(lambda _, b: (None, lx.linear_solve(op, b, lx.AutoLinearSolver(well_posed=False)).value), None, B.T)[1]
  return result.mean()


if __name__ == "__main__":
    A32 = jnp.asarray(A, dtype=jnp.float32)
    g1 = test1(A32)
    g2 = test2(A32)
    g3 = test3(A32)
    assert g1.shape == g2.shape == g3.shape == (M, N)
    assert jnp.allclose(g1, g2, atol=1e-4) and jnp.allclose(g2, g3, atol=1e-4)
