# source: https://github.com/jax-ml/jax/issues/7969
# observed on jax 0.10.2 CPU: f(0.5) returns 0.5; f_jit(0.5) raises
#   TracerBoolConversionError in f: the chained comparison `0<x<1` is `0<x and x<1`,
#   which converts the traced `0<x` to a Python bool. Added: nothing.
# gap: omnistaging
import jax

def f(x):
    return jax.numpy.piecewise(x, [x<0,0<x<1], [-x, x])  # expect: JIT103

f_jit=jax.jit(f)

f(0.5) # 0.5
f_jit(0.5) # Error
