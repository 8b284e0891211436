# source: https://github.com/jax-ml/jax/pull/1706 (the reviewer's "original implementation"
#   of binary_search_func with lax.while_loop, from the lax.custom_root tests; the
#   experimental `loops` version is left out, as jax.experimental.loops no longer exists,
#   and sqrt_cubed calls binary_search_func)
# observed on jax 0.10.2 CPU: runs clean under jit: the traced comparisons are the
#   while_loop's cond result and jnp.where selectors, never Python bools.
# gap: exemption-vs-JAX
import jax
import jax.numpy as np
from jax import lax

def binary_search_func(func, low=0.0, high=100.0, tolerance=1e-6):
  # original implementation

  def cond(state):
    low, high = state
    return high - low > tolerance

  def body(state):
    low, high = state
    midpoint = 0.5 * (low + high)
    update_upper = func(midpoint) > 0
    low = np.where(update_upper, low, midpoint)
    high = np.where(update_upper, midpoint, high)
    return (low, high)

  solution, _ = lax.while_loop(cond, body, (low, high))
  return solution

def sqrt_cubed(x):
  f = lambda y: y ** 2 - x ** 3
  return binary_search_func(f)

if __name__ == "__main__":
    out = jax.jit(sqrt_cubed)(4.0)
    assert abs(float(out) - 8.0) < 1e-3, out
