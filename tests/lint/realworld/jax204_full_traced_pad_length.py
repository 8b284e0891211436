# source: https://github.com/jax-ml/jax/issues/204
# observed on jax 0.10.2 CPU: TypeError: Shapes must be 1D sequences of concrete values of
#   integer type, at lax.full: `pad_to_length` is a traced argument of the jitted function.
#   The print of the shape is the user's deliberate trace-time probe (it showed the tracer
#   inside the shape), so it is tolerated. `onp` is NumPy and `np` jax.numpy in the report.
# gap: other
import numpy as onp
import jax.numpy as np
from jax import jit, lax

def dynamic_update_slice_test(first_row, pad_to_length):
  width = first_row.shape[0]
  empty_array = lax.full((pad_to_length,width), 0, first_row.dtype)  # expect: JIT404
  first_row_reshaped = np.reshape(first_row, (1,width))
  print(empty_array.shape)  # tolerate: JIT203
  return lax.dynamic_update_slice(empty_array, first_row_reshaped, start_indices=[0])

dynamic_update_slice_test_jit = jit(dynamic_update_slice_test)
dynamic_update_slice_test_jit(onp.array([1,2]),4)
