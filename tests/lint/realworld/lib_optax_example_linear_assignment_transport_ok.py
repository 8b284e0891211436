# source: https://github.com/google-deepmind/optax/blob/2edbcbe2390da13983b92cbef94ac0460ecde1c5/examples/linear_assignment_problem.ipynb
# observed on jax 0.10.2 CPU: with optax 0.2.8, get_optimal_transport from the example's
#   optimal-transport cell runs under jax.jit: the shape asserts read static shapes, the
#   Hungarian algorithm keeps fixed-size outputs, and the jitted result equals the eager one.
#   Kept: the cells computing the cost matrix, the assignment and get_optimal_transport; left
#   out: the pip install, networkx and matplotlib drawing cells. Added: the `__main__` block
#   that jits get_optimal_transport (the notebook calls it eagerly) and compares.
# gap: exemption-vs-JAX
import jax
import optax
from jax import numpy as jnp, random

n = 5  # number of rows
m = 3  # number of columns

key = random.key(0)
costs = random.normal(key, (n, m))
print(costs)

sol_i, sol_j = optax.assignment.hungarian_algorithm(costs)
print(sol_i, sol_j)


def get_optimal_transport(x, y):
    assert x.ndim == 2
    assert x.shape == y.shape
    displacements = x[:, None] - y[None, :]
    distance_matrix = jnp.linalg.norm(displacements, axis=-1)
    i, j = optax.assignment.hungarian_algorithm(distance_matrix)
    total_distance = distance_matrix[i, j].sum()
    return (i, j), total_distance


def main():
    num_points = 200

    key = random.key(0)
    keys = random.split(key)
    x = random.normal(keys[0], (num_points, 2))
    y = random.normal(keys[1], (num_points, 2)) + jnp.array([0.2, 0.0])

    (i, j), total_distance = get_optimal_transport(x, y)
    return x, y, total_distance


if __name__ == "__main__":
    x, y, eager_distance = main()
    (i, j), jit_distance = jax.jit(get_optimal_transport)(x, y)
    assert i.shape == (200,) and j.shape == (200,)
    assert jnp.allclose(eager_distance, jit_distance), (eager_distance, jit_distance)
    (ci, cj) = jax.jit(optax.assignment.hungarian_algorithm)(costs)
    assert (ci == sol_i).all() and (cj == sol_j).all()
