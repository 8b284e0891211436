# source: https://github.com/jax-ml/jax/issues/23637 (the first example of the report)
# observed on jax 0.10.2 CPU: TracerBoolConversionError in the scan body: `bool(c)` of the
#   traced carry.
# gap: other
import jax
def body(c, _): return bool(c), None  # expect: JIT401
jax.lax.scan(body, 3., None, length=1)
