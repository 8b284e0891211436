# source: https://github.com/jax-md/jax-md/blob/a41c7d19f6468f4e5263c32c12c9ed6cba26ebff/jax_md/_energy/electrostatics.py
#   (jax-md's coulomb_recip_ewald as changed by commit 7a819ee, "Change prefactor and do
#   mask in two stages", #385; verbatim, with structure_factor from the same file and
#   util.high_precision_sum from jax_md/util.py inlined)
# observed on jax 0.10.2 CPU: two_stage_safe_mask is jitted once with `fn` static, but
#   energy_fn builds `fn` as a new lambda (closing over this call's S2) on every call, so
#   every call of energy_fn misses jit's cache and traces and compiles two_stage_safe_mask
#   again: three calls on the same positions, three compilations.
#   Added: the imports, jax_enable_x64 (jax-md's own test setting; high_precision_sum sums
#   in 64 bit), a small box of charges, and the __main__ block that calls energy_fn three
#   times and counts compilations through jax.monitoring.
# gap: per-call-recompile
from functools import partial

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp
import numpy as onp


def high_precision_sum(X, axis=None, keepdims=False):
  """Sums over axes at 64-bit precision then casts back to original dtype."""
  if jnp.issubdtype(X.dtype, jnp.integer):
    dtyp = jnp.int64
  elif jnp.issubdtype(X.dtype, jnp.complexfloating):
    dtyp = jnp.complex128
  else:
    dtyp = jnp.float64

  return jnp.array(
    jnp.sum(X, axis=axis, dtype=dtyp, keepdims=keepdims), dtype=X.dtype
  )


def coulomb_recip_ewald(charge, side_length, alpha, g_max):

  @partial(jax.jit, static_argnums=(1,))
  def two_stage_safe_mask(
    mask, fn, operand, placeholder_in=1.0, placeholder_out=0.0
  ):
    masked = jnp.where(mask, operand, placeholder_in)
    return jnp.where(mask, fn(masked), placeholder_out)

  def energy_fn(position, **kwargs):
    dim = position.shape[-1]
    V = side_length**dim

    dg = 2 * onp.pi / side_length
    # Just to make the sum inclusive.
    g_range = onp.arange(0.0, float(g_max + dg / 2), float(dg))
    g_range = onp.concatenate((-g_range[::-1], g_range[1:]))

    gx, gy, gz = jnp.meshgrid(g_range, g_range, g_range)
    g = jnp.reshape(jnp.stack((gx, gy, gz), axis=-1), (-1, dim))
    g2 = jnp.sum(g**2, axis=-1)
    mask = (g2 < g_max**2) & (g2 > 1e-7)

    Z = (2 * jnp.pi) / V
    S2 = jnp.abs(structure_factor(g, position, charge)) ** 2
    fn = lambda g2: jnp.exp(-g2 / (4 * alpha**2)) / g2 * S2

    return Z * high_precision_sum(two_stage_safe_mask(mask, fn, g2))  # expect: JIT301

  return energy_fn


def structure_factor(g, R, q=1):
  if isinstance(q, jnp.ndarray):
    q = q[None, :]
  return high_precision_sum(
    q * jnp.exp(1j * jnp.einsum('id,jd->ij', g, R)), axis=1
  )


if __name__ == "__main__":
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
    lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
  )

  charge = jnp.array([1.0, -1.0, 1.0, -1.0])
  position = jnp.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0],
                        [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
  energy_fn = coulomb_recip_ewald(charge, 4.0, 0.35, 3.0)

  energies = [energy_fn(position) for _ in range(3)]
  n = compiles.count("jit(two_stage_safe_mask)")
  # observed: line 64 passes a new lambda as jit's static `fn` on every call: three calls, three compiles
  assert n == 3, (n, compiles)
  assert jnp.allclose(energies[0], energies[2])
  print(energies[0], n)
