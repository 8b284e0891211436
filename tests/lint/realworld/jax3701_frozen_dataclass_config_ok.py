# source: https://github.com/jax-ml/jax/issues/3701 (the fix given in the report)
# observed on jax 0.10.2 CPU: runs clean and compiles once: a frozen dataclass is hashable.
# gap: static-hashability
import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:
  some_value: int

@functools.partial(jax.jit, static_argnums=1)
def do_stuff(data, config):
  return data * config.some_value

def evaluate():
  config = Config(2)
  data = jnp.ones(3)
  return do_stuff(data, config)

evaluate()
evaluate()
