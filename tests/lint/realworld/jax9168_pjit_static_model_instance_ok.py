# source: https://github.com/jax-ml/jax/issues/9168
# observed on jax 0.10.2 CPU (2 host devices forced through XLA_FLAGS): runs clean. The
#   model instance passed at static_argnums=1 is hashed by identity, so its Python loop over
#   `self.num_layers` unrolls at trace time and a second call with the same model reuses the
#   compiled function ("Runing/Tracing run_my_model" prints once, as the user's message means:
#   it marks tracing). The 2022 report's TypeError (pjit checked static arguments as arrays)
#   is gone. Renamed APIs: `jax.experimental.maps.mesh(jax.devices(), ["data"])` is spelled
#   `Mesh(np.array(jax.devices()), ("data",))`, and pjit's `in_axis_resources` /
#   `out_axis_resources` are `in_shardings` / `out_shardings`; pjit itself is now `jax.jit`.
#   Added: imports, the XLA_FLAGS line and the __main__ checks.
# gap: static-hashability
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh

pjit = jax.jit


class MyModel:

  def __init__(self, num_layers: int):
    self.num_layers = num_layers

  def compute(self, x):
    for i in range(self.num_layers):
      # Imagine here a real implementation of neural networks.
      x = x + 10
    return x

def run_my_model(x, model):
  print("Runing/Tracing run_my_model")  # tolerate: JIT203
  return model.compute(x)


input = jnp.arange(4)
model = MyModel(num_layers=3)

if __name__ == "__main__":
  import contextlib
  import io

  out = io.StringIO()
  with contextlib.redirect_stdout(out):
    with Mesh(np.array(jax.devices()), ("data",)):
      f = pjit(run_my_model, in_shardings=None,
               out_shardings=None, static_argnums=1)
      first = f(input, model)
      second = f(input, model)
  assert out.getvalue().count("Runing/Tracing run_my_model") == 1, out.getvalue()
  assert (np.asarray(first) == np.arange(4) + 30).all(), first
  assert (np.asarray(second) == np.asarray(first)).all()
