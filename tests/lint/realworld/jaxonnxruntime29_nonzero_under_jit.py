# source: https://github.com/google/jaxonnxruntime/issues/29 (onnx_nonzero as it was before the
#   fix, https://github.com/google/jaxonnxruntime/blob/8934886f4aea20af41c485ba2d4b3317adbc98cf/jaxonnxruntime/onnx_ops/nonzero.py;
#   the handler class is left out, and `infer`, a jitted function that calls the op on its
#   input, stands in for the jitted call_onnx model function of the report)
# observed on jax 0.10.2 CPU: onnx_nonzero runs eagerly, but inside the jitted `infer`
#   jnp.nonzero without size= raises ConcretizationTypeError ("The size argument of
#   jnp.nonzero must be statically specified").
# gap: other
import logging

import jax
from jax import numpy as jnp


# @functools.partial(jit, static_argnames=("size"))
def onnx_nonzero(*input_args):
  """The impl for https://github.com/onnx/onnx/blob/v1.12.0/docs/Operators.md#NonZero."""
  assert len(input_args) == 1
  logging.warning("onnx_nonzero cann not support jax.jit mode.")
  (x,) = input_args
  return jnp.stack(jnp.nonzero(x))  # expect: JIT403


@jax.jit
def infer(inputs):
  return onnx_nonzero(inputs)


x = jnp.array([[1, 0], [1, 1]])
print(onnx_nonzero(x))  # eager: fine
print(infer(x))
