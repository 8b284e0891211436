# source: https://github.com/jax-ml/jax/issues/7545 (radec2lm from the reporter's code and
#   the maintainer's diagnosis: NumPy arrays reach the function and are indexed with a
#   traced value)
# observed on jax 0.10.2 CPU: TracerArrayConversionError at `ra, dec = radec[s]`: radec is
#   a NumPy array (as check_grads handed it in the report) and s is the traced fori_loop
#   index. Added: ops.index_update in its current spelling (.at[].set), and a direct call
#   with a NumPy radec standing in for check_grads.
# gap: types
import numpy as np

import jax.numpy as jnp
from jax import lax

# define some constants
deg2rad = jnp.pi / 180.0;
def radec2lm(radec, ra0=177.117828264*deg2rad, dec0=-29.9948728272*deg2rad):
  source = radec.shape[0]
  lm = jnp.empty((source, 2), radec.dtype)

  def body(s, lm):
    ra, dec = radec[s]  # expect: JIT402
    delta_ra = ra - ra0
    l = jnp.cos(dec)*jnp.sin(delta_ra)
    m = jnp.sin(dec)*jnp.cos(dec0) - jnp.cos(dec)*jnp.sin(dec0)*jnp.cos(delta_ra)

    lm = lm.at[s, 0].set(l)
    lm = lm.at[s, 1].set(m)

    return lm

  return lax.fori_loop(0, source, body, lm)


radec2lm(np.array([[3.09, -0.52], [3.1, -0.53]], dtype=np.float32))
