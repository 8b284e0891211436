# source: https://github.com/google/flax/blob/f5931862d6d9c0c9f73761171921594464056ef8/flax/linen/recurrent.py
#   (the `_concat_dense` helper of OptimizedLSTMCell.__call__, before commit 331bdc2c "Fix
#   ConcretizationTypeError in jnp.split", which computes the indices with NumPy)
# observed on jax 0.10.2 CPU: under jit the split points, made with jnp.cumsum(jnp.array(...))
#   from Python ints, are tracers, and jnp.split raises ConcretizationTypeError. The helper
#   is lifted out of __call__ unchanged; the imports and the jitted call on four
#   (kernel, bias) pairs, as OptimizedLSTMCell builds them, are added.
# gap: omnistaging
import jax
from jax import numpy as jnp


def _concat_dense(inputs, params, use_bias=True):
  """
  Concatenates the individual kernels and biases, given in params, into a 
  single kernel and single bias for efficiency before applying them using 
  dot_general.
  """
  kernels, biases = zip(*params.values())
  kernel = jnp.asarray(jnp.concatenate(kernels, axis=-1), jnp.float32)

  y = jnp.dot(inputs, kernel)
  if use_bias:
    bias = jnp.asarray(jnp.concatenate(biases, axis=-1), jnp.float32)
    y = y + bias
  
  # Split the result back into individual (i, f, g, o) outputs.
  split_indices = jnp.cumsum(jnp.array([b.shape[0] for b in biases[:-1]]))
  ys = jnp.split(y, split_indices, axis=-1)  # expect: JIT404
  return dict(zip(params.keys(), ys))


if __name__ == "__main__":
  params = {k: (jnp.ones((3, 4)), jnp.zeros(4)) for k in ("i", "f", "g", "o")}
  print(_concat_dense(jnp.ones((2, 3)), params)["i"].shape)
  jax.jit(_concat_dense)(jnp.ones((2, 3)), params)
