# source: https://github.com/jax-ml/jax/issues/1922
# observed on jax 0.10.2 CPU: test(inputs, axis=(0,)) raises at the jnp.mean line: jit
#   traces the keyword argument `axis` like any other (a tuple of one traced int), and
#   jnp.mean needs its axis as a Python int.
#   Added: nothing.
# gap: types
from jax import jit
import jax.numpy as jnp
import numpy as np

@jit
def test(inputs,axis=(0,)):
    mean=jnp.mean(inputs,axis=axis,keepdims=True)  # expect: JIT404

input_shape=(8,16)
inputs=np.random.uniform(size=input_shape)
test(inputs,axis=(0,))
