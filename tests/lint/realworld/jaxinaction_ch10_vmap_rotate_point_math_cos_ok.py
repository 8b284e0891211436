# source: https://github.com/che-shr-cat/JAX-in-Action/blob/343815364f77d5646a78965495e88ef341536bf0/Chapter-10/JAX_in_Action_Chapter_10_Pytrees.ipynb
#   (the book's chapter 10 notebook: the cells from `Point` to the vmap over the
#   transposed points that works; the failing attempts in between are left out)
# observed on jax 0.10.2 CPU: runs clean; rotate_point calls math.cos and math.sin on
#   theta, which vmap leaves unmapped (in_axes None), so theta stays the Python float
#   math.pi; only p.x and p.y are batched. Added: the __main__ block, which checks the
#   rotated points and runs the same vmap under jit with theta closed over.
# gap: exemption-vs-JAX
import math
from collections import namedtuple

import jax
import jax.numpy as jnp

Point = namedtuple('Point', ['x', 'y'])

points = [
    Point(0.0, 0.0),
    Point(3.0, 0.0),
    Point(0.0, 4.0)
]

def rotate_point(p, theta):
  x = p.x * math.cos(theta) - p.y * math.sin(theta)
  y = p.x * math.sin(theta) + p.y * math.cos(theta)
  return Point(x,y)

rotate_point(points[1], math.pi)

points_t = jax.tree_util.tree_transpose(
  outer_treedef = jax.tree_util.tree_structure([0 for p in points]),
  inner_treedef = jax.tree_util.tree_structure(points[0]),
  pytree_to_transpose=points
)

points_t_array = Point(jnp.array(points_t.x),jnp.array(points_t.y))

jax.vmap(rotate_point, in_axes=(0, None))(points_t_array, math.pi)

if __name__ == "__main__":
    rotated = jax.vmap(rotate_point, in_axes=(0, None))(points_t_array, math.pi)
    assert jnp.allclose(rotated.x, jnp.array([0.0, -3.0, 0.0]), atol=1e-5)
    assert jnp.allclose(rotated.y, jnp.array([0.0, 0.0, -4.0]), atol=1e-5)
    jitted = jax.jit(lambda pts: jax.vmap(rotate_point, in_axes=(0, None))(pts, math.pi))
    assert jnp.allclose(jitted(points_t_array).x, rotated.x)
