# source: https://github.com/jax-ml/jax/pull/4342 (the function in the description, whose
#   error message the pull request improves)
# observed on jax 0.10.2 CPU: f(1, 2) raises TracerBoolConversionError at `if x > y:`: the
#   comparison depends on both traced arguments of f. Added: the call f(1, 2).
# gap: other
import jax

@jax.jit
def f(x,y):
  if x > y:  # expect: JIT101
    return x
  else:
    return y

f(1, 2)
