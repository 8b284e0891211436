# source: https://github.com/jax-ml/jax/issues/2304 (the example in the description)
# observed on jax 0.10.2 CPU: TracerIntegerConversionError at `mylist[idx]`: under jit idx
#   is a tracer, and a Python list cannot be indexed by it. Added: the import of jit and a
#   call with an integer index and a list of three floats, as the description describes.
# gap: types
from jax import jit

@jit
def f(idx, mylist):
    return mylist[idx]  # expect: JIT401

f(1, [1.0, 2.0, 3.0])
