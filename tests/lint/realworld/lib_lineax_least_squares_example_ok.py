# source: https://github.com/patrick-kidger/lineax/blob/v0.1.1/docs/examples/least_squares.ipynb
#   (the example's code cells from the JAX comparison on, as published; the imports of the
#   first cell are kept and its deliberately failing solves, which the page shows raising,
#   are left out)
# observed on jax 0.10.2 CPU (lineax 0.1.1): runs clean. The jitted solvers and gradients
#   each trace once however often timeit calls them; `grad_jax` and `grad_lineax` read the
#   module-level `vector`, whose every assignment comes before their definition, and the
#   last cell rebinds both names to new jitted functions before calling them (the NaN JAX
#   gradient it prints is the page's point about jnp.linalg.lstsq, not a tracing effect).
#   Added: the __main__ block.
# gap: flow-sensitive
import jax.random as jr
import lineax as lx
import timeit

import jax
import jax.numpy as jnp
import numpy as np


matrix = jr.normal(jr.PRNGKey(0), (500, 200))
vector = jr.normal(jr.PRNGKey(1), (500,))


@jax.jit
def solve_jax(matrix, vector):
    out, *_ = jnp.linalg.lstsq(matrix, vector)
    return out


@jax.jit
def solve_lineax(matrix, vector):
    operator = lx.MatrixLinearOperator(matrix)
    solver = lx.QR()  # or lx.AutoLinearSolver(well_posed=None)
    solution = lx.linear_solve(operator, vector, solver)
    return solution.value


solution_jax = solve_jax(matrix, vector)
solution_lineax = solve_lineax(matrix, vector)
with np.printoptions(threshold=10):
    print("JAX solution:", solution_jax)
    print("Lineax solution:", solution_lineax)
print()
time_jax = timeit.repeat(lambda: solve_jax(matrix, vector), number=1, repeat=10)
time_lineax = timeit.repeat(lambda: solve_lineax(matrix, vector), number=1, repeat=10)
print("JAX time:", min(time_jax))
print("Lineax time:", min(time_lineax))

@jax.jit
@jax.grad
def grad_jax(matrix):
    out, *_ = jnp.linalg.lstsq(matrix, vector)
    return out.sum()


@jax.jit
@jax.grad
def grad_lineax(matrix):
    operator = lx.MatrixLinearOperator(matrix)
    solution = lx.linear_solve(operator, vector, lx.SVD())
    return solution.value.sum()


gradients_jax = grad_jax(matrix)
gradients_lineax = grad_lineax(matrix)
with np.printoptions(threshold=10, edgeitems=2):
    print("JAX gradients:", gradients_jax)
    print("Lineax gradients:", gradients_lineax)
print()
time_jax = timeit.repeat(lambda: grad_jax(matrix), number=1, repeat=10)
time_lineax = timeit.repeat(lambda: grad_lineax(matrix), number=1, repeat=10)
print("JAX time:", min(time_jax))
print("Lineax time:", min(time_lineax))

@jax.jit
@jax.grad
def grad_jax(matrix):
    out, *_ = jnp.linalg.lstsq(matrix, jnp.arange(3.0))
    return out.sum()


@jax.jit
@jax.grad
def grad_lineax(matrix):
    operator = lx.MatrixLinearOperator(matrix)
    solution = lx.linear_solve(operator, jnp.arange(3.0), lx.SVD())
    return solution.value.sum()


print("JAX gradients:", grad_jax(jnp.eye(3)))
print("Lineax gradients:", grad_lineax(jnp.eye(3)))


if __name__ == "__main__":
    assert jnp.allclose(solution_jax, solution_lineax, atol=1e-4)
    assert solve_jax._cache_size() == 1 and solve_lineax._cache_size() == 1
    assert grad_lineax._cache_size() == 1
    assert bool(jnp.all(jnp.isfinite(grad_lineax(jnp.eye(3)))))
