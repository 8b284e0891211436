# source: https://github.com/awueth/jax-bessel-log/blob/15f1adbc34d1b4b3739b68e709a4b93d405d6b0e/jax_bessel_log/jv_log.py
# observed on jax 0.10.2 CPU: `jv_log` runs under `jax.jit` and `jax.jit(jax.vmap(...))`: the
#   `assert` reads only the static dtype, `jnp.broadcast_shapes` only static shapes, and the
#   SciPy call goes through `jax.pure_callback` with its result's shape and dtype, so the traced
#   order and argument reach SciPy as host arrays at run time. The jitted results equal the
#   callback's formula, log(scipy.special.jve(v, z)) + z, computed in NumPy on the same values,
#   and a second call with new values reuses the compiled function and gives the new values.
#   (The formula adds z, as for `ive`, though `jve` of a real z is `jv`: a slip in the maths
#   carried over from the module's `iv_log`, not a jit bug; the check compares with it as written.)
#   Added: the `__main__` block that calls it.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import scipy.special


def jv_log(v, z):
  v, z = jnp.asarray(v), jnp.asarray(z)

  # Require the order v to be integer type: this simplifies
  # the JVP rule below.
  assert jnp.issubdtype(v.dtype, jnp.integer)

  # Promote the input to inexact (float/complex).
  # Note that jnp.result_type() accounts for the enable_x64 flag.
  z = z.astype(jnp.result_type(float, z.dtype))

  # Wrap scipy function to return the expected dtype.
  _scipy_jv = lambda v, z: jnp.log(scipy.special.jve(v, z).astype(z.dtype)) + z

  # Define the expected shape & dtype of output.
  result_shape_dtype = jax.ShapeDtypeStruct(
      shape=jnp.broadcast_shapes(v.shape, z.shape),
      dtype=z.dtype)

  # Use vmap_method="broadcast_all" because scipy.special.jv handles broadcasted inputs.
  return jax.pure_callback(_scipy_jv, result_shape_dtype, v, z, vmap_method="broadcast_all")


if __name__ == "__main__":
  import numpy as np

  jitted = jax.jit(jv_log)
  v = jnp.array([0, 1, 2])
  z = jnp.array([0.5, 1.0, 1.5])
  out = jitted(v, z)
  ref = lambda v, z: np.log(scipy.special.jve(np.asarray(v), np.asarray(z))) + np.asarray(z)
  np.testing.assert_allclose(np.asarray(out), ref(v, z), rtol=1e-5)
  z2 = jnp.array([0.7, 1.2, 2.0])
  out2 = jitted(v, z2)
  np.testing.assert_allclose(np.asarray(out2), ref(v, z2), rtol=1e-5)
  assert jitted._cache_size() == 1, jitted._cache_size()
  batched = jax.jit(jax.vmap(jv_log, in_axes=(None, 0)))(jnp.int32(1), jnp.array([0.5, 1.0, 1.5]))
  np.testing.assert_allclose(np.asarray(batched), ref(1, np.array([0.5, 1.0, 1.5])), rtol=1e-5)
