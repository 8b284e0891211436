# source: https://github.com/jax-ml/jax/blob/1082251cde876f91608b403d1995b5e0025f0398/docs/tracing.md
#   (the example after "control flow statements in the function cannot depend on traced
#   values ... For example, this fails:"; the page was added by jax#30703)
# observed on jax 0.10.2 CPU: f(1, True) raises TracerBoolConversionError on the
#   conditional expression: `neg` is traced like every argument jit is not told to keep
#   static. Added: `from jax import jit`, from the document's first cell.
# gap: other
from jax import jit


@jit
def f(x, neg):
  return -x if neg else x  # expect: JIT101

f(1, True)
