# source: https://github.com/jax-ml/jax/pull/22098
# observed on jax 0.10.2 CPU: TracerBoolConversionError: Attempted boolean conversion of
#   traced array with shape bool[].
# gap: other
import jax

@jax.jit
def f(qiaoqiao):
  if True and qiaoqiao:  # expect: JIT101  # tolerate: JIT103
    return 1
  return 0

f(True)
