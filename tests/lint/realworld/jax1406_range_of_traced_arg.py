# source: https://github.com/jax-ml/jax/issues/1406
# observed on jax 0.10.2 CPU: TracerIntegerConversionError: the __index__() method was
#   called on traced array (range() of a traced argument).
# gap: other
from jax import jit

def foo(num):
    for _ in range(num):  # expect: JIT104
        pass

jit(foo)(0)
