# source: https://github.com/jax-md/jax-md/blob/a41c7d19f6468f4e5263c32c12c9ed6cba26ebff/jax_md/interpolate.py
#   (jax-md's interpolate.spline, verbatim; util.f32 written out as jnp.float32)
# observed on jax 0.10.2 CPU: the spline is fitted once with SciPy on concrete values,
#   outside any trace; the returned spline_fn runs under jax.jit and jax.jit(jax.vmap(...))
#   and matches its eager values: `np` here is jax.numpy, so `coeffs` is a JAX array that
#   the traced `truncated_ind` may index, and `range(degree + 1)` is a Python loop.
#   (jnp.int64 is int32 without x64, with a warning.) Added: the __main__ block, which fits
#   sin(x) and evaluates the spline under jit and vmap.
# gap: types
import warnings

import jax
import jax.numpy as np
from scipy.interpolate import splrep, PPoly

f32 = np.float32


def spline(y, dx, degree=3):
  """Spline fit a given scalar function.

  Args:
    y: The values of the scalar function evaluated on points starting at zero
    with the interval dx.
    dx: The interval at which the scalar function is evaluated.
    degree: Polynomial degree of the spline fit.

  Returns:
    A function that computes the spline function.
  """
  num_points = len(y)
  dx = f32(dx)
  x = np.arange(num_points, dtype=f32) * dx
  # Create a spline fit using the scipy function.
  fn = splrep(x, y, s=0, k=degree)  # Turn off smoothing by setting s to zero.
  params = PPoly.from_spline(fn)
  # Store the coefficients of the spline fit to an array.
  coeffs = np.array(params.c)

  def spline_fn(x):
    """Evaluates the spline fit for values of x."""
    ind = np.array(x / dx, dtype=np.int64)
    # The spline is defined for x values between 0 and largest value of y. If x
    # is outside this domain, truncate its ind value to within the domain.
    truncated_ind = np.array(
      np.where(ind < num_points, ind, num_points - 1), np.int64
    )
    truncated_ind = np.array(
      np.where(truncated_ind >= 0, truncated_ind, 0), np.int64
    )
    result = np.array(0, x.dtype)
    dX = x - np.array(ind, np.float32) * dx
    for i in range(degree + 1):  # sum over the polynomial terms up to degree.
      result = result + np.array(
        coeffs[degree - i, truncated_ind + 2], x.dtype
      ) * dX ** np.array(i, x.dtype)
    # For x values that are outside the domain of the spline fit, return zeros.
    result = np.where(ind < num_points, result, np.array(0.0, x.dtype))
    return result

  return spline_fn


if __name__ == "__main__":
  warnings.simplefilter("ignore", UserWarning)
  dx = 0.1
  y = np.sin(np.arange(50) * dx)
  fn = spline(y, dx)

  xs = np.array([0.05, 0.73, 1.5, 3.2])
  eager = fn(xs)
  jitted = jax.jit(fn)(xs)
  assert np.allclose(jitted, eager, atol=1e-5)
  assert np.allclose(jitted, np.sin(xs), atol=1e-3), (jitted, np.sin(xs))
  mapped = jax.jit(jax.vmap(fn))(xs)
  assert np.allclose(mapped, eager, atol=1e-5)
  print(jitted, mapped)
