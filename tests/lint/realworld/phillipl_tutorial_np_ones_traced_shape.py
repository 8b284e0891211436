# source: https://github.com/PhillipLo/jax-tutorial/blob/c660f1ed85f66b395e704d121a213e7f7fa861b1/tutorial.ipynb
#   (a user's JAX tutorial notebook, section "JIT pitfalls", cell 44; the imports are cells 3
#   and 40)
# observed on jax 0.10.2 CPU: TracerIntegerConversionError at `np.ones(shape = (a,))`: under
#   `jit` the integer `a` is a tracer and NumPy asks for its `__index__` (the notebook's
#   output shows the same error). Its fix makes `a` static (cell 46).
# gap: types
import numpy as np
from jax import jit

def stupid_mult(a, b): # multiply two integers a and b in a very dumb way
  bs = b * np.ones(shape = (a,)) # the shape of bs depends on a!  # expect: JIT404  # tolerate: JIT402
  ab = np.sum(bs)

  return ab

stupid_mult_jitted = jit(stupid_mult)
stupid_mult_jitted(3, 4)
