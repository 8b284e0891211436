# source: https://github.com/jax-ml/jax/issues/3701
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (a plain @dataclass has __eq__ and so __hash__ = None). The elided bodies of the
#   user's sketch are filled with the smallest code that runs.
# gap: static-hashability
import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Config:
  some_value: int
  # many other values omitted

@functools.partial(jax.jit, static_argnums=1)
def do_stuff(data, config):
  # do some stuff
  return data * config.some_value

def summon_up_evaluation_data():
  return jnp.ones(3)

def evaluate():
  config = Config(2)
  data = summon_up_evaluation_data()
  do_stuff(data, config)  # expect: JIT302

evaluate()
