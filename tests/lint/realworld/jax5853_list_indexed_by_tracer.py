# source: https://github.com/jax-ml/jax/pull/5853 (the example in the description)
# observed on jax 0.10.2 CPU: TracerIntegerConversionError: a Python list indexed by the
#   traced argument calls `__index__()` on the tracer.
# gap: types
import jax

jax.jit(lambda i: [1, 2, 3][i])(0)  # expect: JIT401
