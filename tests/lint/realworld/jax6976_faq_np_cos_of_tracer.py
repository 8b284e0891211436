# source: https://github.com/jax-ml/jax/issues/6976 (the FAQ example quoted in the report;
#   `import jax` and `import numpy as np` are added, as the FAQ's section has them)
# observed on jax 0.10.2 CPU: TracerArrayConversionError at `return np.cos(x)`: under jit x
#   is a tracer and NumPy asks for its value. The print shows the tracer once, at trace
#   time, which is what the FAQ means it to show.
# gap: other
import jax
import numpy as np

def func(x):
  print(x)  # tolerate: JIT203
  return np.cos(x)  # expect: JIT402

res = jax.jit(func)(0.)
