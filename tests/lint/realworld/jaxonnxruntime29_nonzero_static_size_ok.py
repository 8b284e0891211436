# source: https://github.com/google/jaxonnxruntime/issues/29 (onnx_nonzero after the fix,
#   https://github.com/google/jaxonnxruntime/blob/3c7e3235b7d3c1c9223e0bb0e02119fa0c93e7dc/jaxonnxruntime/onnx_ops/nonzero.py;
#   the handler class, which sets size to the input's size, is left out, and `infer` stands
#   in for the jitted call_onnx model function, passing size as the handler's attrs do)
# observed on jax 0.10.2 CPU: runs clean: size is a static argument of the jitted op, so
#   jnp.nonzero pads its result to a known length.
# gap: exemption-vs-JAX
import functools
import logging

import jax
from jax import jit
from jax import numpy as jnp


@functools.partial(jit, static_argnames="size")
def onnx_nonzero(*input_args, size):
  """The impl for https://github.com/onnx/onnx/blob/v1.12.0/docs/Operators.md#NonZero."""
  assert len(input_args) == 1
  logging.warning("onnx_nonzero cann not support jax.jit mode.")
  (x,) = input_args
  return jnp.stack(jnp.nonzero(x, size=size))


@jax.jit
def infer(inputs):
  return onnx_nonzero(inputs, size=inputs.size)


if __name__ == "__main__":
  x = jnp.array([[1, 0], [1, 1]])
  print(infer(x))
