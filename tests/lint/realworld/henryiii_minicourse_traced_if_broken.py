# source: https://raw.githubusercontent.com/henryiii/python-performance-minicourse/master/06b_jax.ipynb
#   (the "Tracer limitations" cells: `broken` and its call)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if x == 3`: under jit x is a
#   tracer (the notebook shows this failure on purpose). Added: the notebook's imports.
# gap: other
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def broken(x):
 if x == 3:  # expect: JIT101
  return x**3
 return x

broken(2)
