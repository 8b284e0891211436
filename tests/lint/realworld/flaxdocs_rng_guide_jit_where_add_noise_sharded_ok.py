# source: https://github.com/google/flax/blob/934bfe8cfa40b62726d03c6b88726226d5328406/docs/guides/flax_fundamentals/rng_guide.md
#   (section "Managing RNG's on multiple devices / Using jax.jit": its setup cell, the model,
#   `forward`, the jitted `jit_forward` and its first call; the guide's later calls with the
#   same `apply_rng` are left out)
# observed on jax 0.10.2 CPU: with flax 0.12.8 and eight emulated host devices (the guide's own
#   XLA flag), the traced flag `add_noise` is used only inside `jnp.where`, so the jitted
#   forward runs clean; `add_noise=True` and `False` give different outputs under one
#   compiled program, and fresh keys give fresh noise.
# gap: exemption-vs-JAX
import os
os.environ["XLA_FLAGS"] = '--xla_force_host_platform_device_count=8'

import flax, flax.linen as nn
import jax, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec, NamedSharding
from jax.experimental import mesh_utils

jax.config.update('jax_threefry_partitionable', True)

# Create a mesh and annotate the axis with a name.
device_mesh = mesh_utils.create_device_mesh((8,))
print(device_mesh)

mesh = Mesh(devices=device_mesh, axis_names=('data',))
print(mesh)

data_sharding = NamedSharding(mesh, PartitionSpec('data',))
print(data_sharding)

class Model(nn.Module):
  @nn.compact
  def __call__(self, x, add_noise):
    x = nn.Dense(1)(x)
    # use jnp.where for control flow; for more details see: https://jax.readthedocs.io/en/latest/errors.html#jax.errors.TracerBoolConversionError
    return jnp.where(
      add_noise, x + jax.random.normal(self.make_rng('params'), x.shape), x
    )

module = Model()
init_rng, apply_rng = jax.random.split(jax.random.key(0))
x = jnp.ones((8, 1))
variables = module.init(init_rng, x, False)

# create custom forward function, since jit does not support kwargs when in_shardings is specified
def forward(variables, x, add_noise, rng):
  return module.apply(variables, x, add_noise, rngs={'params': rng})

# shard the inputs x across devices
# replicate the variables, add_noise boolean and rng key across devices
# shard the output across devices
jit_forward = jax.jit(
  forward,
  in_shardings=(None, data_sharding, None, None),
  out_shardings=data_sharding,
)
out = jit_forward(variables, x, True, apply_rng)
out


if __name__ == "__main__":
  k1, k2, k3, k4 = jax.random.split(jax.random.key(1), 4)
  noisy1 = jit_forward(variables, x, True, k1)
  noisy2 = jit_forward(variables, x, True, k2)
  clean = jit_forward(variables, x, False, k3)
  assert len(out.addressable_shards) == 8
  assert not jnp.allclose(noisy1, noisy2)
  assert jnp.allclose(clean, module.apply(variables, x, False, rngs={'params': k4}))
  assert jit_forward._cache_size() == 1
