# source: https://github.com/jax-ml/jax/issues/7969 (the maintainer's answer: write
#   `(0<x)&(x<1)` instead of the chained comparison)
# observed on jax 0.10.2 CPU: f_jit(0.5) returns 0.5, as f(0.5) does. Added: the assert.
# gap: omnistaging
import jax

def f(x):
    return jax.numpy.piecewise(x, [x<0,(0<x)&(x<1)], [-x, x])

f_jit=jax.jit(f)

f(0.5) # 0.5
f_jit(0.5) # DeviceArray(0.5, dtype=float32)
assert float(f_jit(0.5)) == float(f(0.5)) == 0.5
