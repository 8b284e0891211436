# source: https://github.com/jax-ml/jax/issues/1453 (the reporter's minimal reproduction)
# observed on jax 0.10.2 CPU: the eager call works; jit(conv) traces every argument,
#   including the Python tuple `stride`, whose entries become tracers, and lax.conv needs its
#   window strides as Python ints: tracing raises TracerArrayConversionError ("... depends on
#   the value of the argument stride[0]") on the `lax.conv` line inside the lambda (an
#   AttributeError in the 2019 report). Kept as written; the prints are the reporter's.
# gap: types
import jax.numpy as np
from jax import lax, jit

A = np.ones((1,1,4,4))
kernel = np.ones((1,1,3,3))
conv = lambda A, kernel, stride: lax.conv(A, kernel, stride, 'SAME')  # expect: JIT404

print("this convolution call works")
print(conv(A, kernel, (1,1)))
print("but after jitting it causes an AttributeError")
print(jit(conv)(A, kernel, (1,1)))
