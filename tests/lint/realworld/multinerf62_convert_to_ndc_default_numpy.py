# source: https://github.com/google-research/multinerf/pull/62 (convert_to_ndc and the NDC
#   branch of pixels_to_rays before the fix,
#   https://github.com/google-research/multinerf/blob/326ebefbcf2d4620ee86b21d046ffa615feea7d4/internal/camera_utils.py;
#   the docstring is shortened, and `cast_ndc_rays`, jitted, stands in for pixels_to_rays
#   run inside the jitted train step with Config.cast_rays_in_train_step=True)
# observed on jax 0.10.2 CPU: the calls leave xnp at its default, NumPy, so
#   np.ones_like of a traced coordinate raises TracerArrayConversionError (np.moveaxis before
#   it works: it calls the tracer's transpose); with xnp=jnp passed, as the fix does, the
#   hard-coded np.stack raises it next.
# gap: types
import functools
import traceback
import types
from typing import Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np

_Array = Union[np.ndarray, jnp.ndarray]


def convert_to_ndc(origins: _Array,
                   directions: _Array,
                   pixtocam: _Array,
                   near: float = 1.,
                   xnp: types.ModuleType = np) -> Tuple[_Array, _Array]:
  """Converts a set of rays to normalized device coordinates (NDC)."""

  # Shift ray origins to near plane, such that oz = -near.
  # This makes the new near bound equal to 0.
  t = -(near + origins[..., 2]) / directions[..., 2]
  origins = origins + t[..., None] * directions

  dx, dy, dz = xnp.moveaxis(directions, -1, 0)
  ox, oy, oz = xnp.moveaxis(origins, -1, 0)

  xmult = 1. / pixtocam[0, 2]  # Equal to -2. * focal / cx
  ymult = 1. / pixtocam[1, 2]  # Equal to -2. * focal / cy

  # Perspective projection into NDC for the t = 0 near points
  #     origins + 0 * directions
  origins_ndc = xnp.stack([xmult * ox / oz, ymult * oy / oz,  # tolerate: JIT402
                           -xnp.ones_like(oz)], axis=-1)  # expect: JIT402

  # Perspective projection into NDC for the t = infinity far points
  #     origins + infinity * directions
  infinity_ndc = np.stack([xmult * dx / dz, ymult * dy / dz,  # expect: JIT402
                           xnp.ones_like(oz)],  # tolerate: JIT402
                          axis=-1)

  # directions_ndc points from origins_ndc to infinity_ndc
  directions_ndc = infinity_ndc - origins_ndc

  return origins_ndc, directions_ndc


@jax.jit
def cast_ndc_rays(origins, directions, dx, dy, pixtocam_ndc):
  xnp = jnp
  # Convert ray origins and directions into projective NDC space.
  origins_dx, _ = convert_to_ndc(origins, dx, pixtocam_ndc)
  origins_dy, _ = convert_to_ndc(origins, dy, pixtocam_ndc)
  origins, directions = convert_to_ndc(origins, directions, pixtocam_ndc)

  # In NDC space, we use the offset between origins instead of directions.
  dx_norm = xnp.linalg.norm(origins_dx - origins, axis=-1)
  dy_norm = xnp.linalg.norm(origins_dy - origins, axis=-1)
  return origins, directions, dx_norm, dy_norm


if __name__ == "__main__":
  def raising_line(fn, *args):
    try:
      fn(*args)
    except jax.errors.TracerArrayConversionError as e:
      return [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__][-1]
    raise AssertionError("did not raise")

  origins = jnp.zeros((4, 3))
  directions = jnp.tile(jnp.array([0.1, 0.2, -1.0]), (4, 1))
  pixtocam = jnp.array([[0.01, 0.0, -0.5], [0.0, -0.01, 0.5], [0.0, 0.0, -1.0]])
  # eagerly, NumPy accepts the arrays
  convert_to_ndc(np.asarray(origins), np.asarray(directions), np.asarray(pixtocam))
  # observed: line 44 raises under jit: np.ones_like gets a tracer (np.moveaxis before it
  # only calls the tracer's own transpose)
  assert raising_line(cast_ndc_rays, origins, directions, directions, directions, pixtocam) == 44
  # observed: line 48 raises next once xnp=jnp is passed: np.stack gets tracers
  assert raising_line(jax.jit(functools.partial(convert_to_ndc, xnp=jnp)),
                      origins, directions, pixtocam) == 48
