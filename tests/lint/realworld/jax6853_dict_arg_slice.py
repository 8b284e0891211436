# source: https://github.com/jax-ml/jax/issues/6853
# observed on jax 0.10.2 CPU: bar (the reporter's working trick) runs; foo raises
#   IndexError: Array slice indices must have static start/stop/step: a `dict` argument
#   is a pytree of tracers under jit, so d['num'] is traced.
# gap: types
import jax.numpy as jnp
import numpy as np
from jax import jit


@jit
def bar(x, d: dict):
  return x[:d['num'].shape[0]] + d['val']

bar(jnp.arange(10), {'num': jnp.zeros((5, 0)), 'val': np.arange(5)})


@jit
def foo(x, d: dict):
  return x[:d['num']] + d['val']  # expect: JIT404

foo(jnp.arange(10), {'num': 5, 'value': np.arange(5)})
