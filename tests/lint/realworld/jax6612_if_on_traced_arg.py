# source: https://github.com/jax-ml/jax/pull/6612 (the example in the description)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if z > 0:`, naming the argument
#   `z` of f.
# gap: other
import jax

@jax.jit
def f(x, y, z):
  if z > 0:  # expect: JIT101
    pass
f(1, 2, 3)
