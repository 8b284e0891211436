# source: https://github.com/jax-ml/jax/issues/23637 (the second example of the report)
# observed on jax 0.10.2 CPU: TracerBoolConversionError in the fori_loop body: `bool(c)` of
#   the traced loop value (the traceback now points at the body).
# gap: other
import jax
def body(_, c): return bool(c)  # expect: JIT401
jax.lax.fori_loop(0, 5, body, 3.)
