# source: https://github.com/jax-ml/jax/issues/6853 (the reporter's second attempt)
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (a dict passed as static argument 1).
# gap: static-hashability
from functools import partial

import jax.numpy as jnp
import numpy as np
from jax import jit


@partial(jit, static_argnums=1)
def foo(x, d: dict):
  return x[:d['num']] + d['val']

foo(jnp.arange(10), {'num': 5, 'value': np.arange(5)})  # expect: JIT302
