# source: https://github.com/jax-ml/jax/issues/7426 (the report's snippet as posted, its two
#   "also fails" variants still commented out; `from typing import Optional` is added)
# observed on jax 0.10.2 CPU: the third line raises TracerBoolConversionError at `if flag:`:
#   under jit, jax.checkpoint traces its keyword argument flag=False, so the Python bool
#   becomes a tracer inside bool_fn.
# gap: other
from typing import Optional

import jax
from jax import numpy as jnp

from functools import partial

def bool_fn(x, flag: Optional[bool]=None):
    if flag:  # expect: JIT101
        return x
    return x - 1

jax.jit(lambda x: bool_fn(x, flag=False))(jnp.ones((10,), jnp.float32)) # succeeds 
(lambda x: jax.checkpoint(bool_fn)(x, flag=False))(jnp.ones((10,), jnp.float32)) # succeeds
jax.jit(lambda x: jax.checkpoint(bool_fn)(x, flag=False))(jnp.ones((10,), jnp.float32)) # fails
# jax.jit(lambda x: jax.checkpoint(bool_fn, concrete=True)(x, flag=False))(jnp.ones((10,), jnp.float32)) # also fails
# jax.jit(lambda x: jax.checkpoint(bool_fn)(x, flag=jnp.array(False)))(jnp.ones((10,), jnp.float32)) # also fails
jax.jit(jax.checkpoint(partial(bool_fn, flag=False)))(jnp.ones((10,), jnp.float32)) # succeeds
