# source: https://github.com/google/flax/issues/4989 (the reporter's example; with flax
#   0.12.0 nnx.jit raised a ValueError because `in_shardings` had no entry for the static
#   argument; a maintainer: "It looks like nnx bug", and the issue was closed with a fix)
# observed on jax 0.10.2 CPU (flax 0.12.8): runs clean on one CPU device and prints 60.0
#   twice: `use_relu` is static (the positional `static_argnums=(2,)`), so `if use_relu:`
#   branches on a Python bool, and `scale` is traced. Added: the imports (the report
#   showed none) and the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from flax import nnx
from jax.experimental import mesh_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

devices = mesh_utils.create_device_mesh((jax.device_count(),))
mesh = Mesh(devices, axis_names=('data',))

def my_func(x, scale: float, use_relu: bool):
    y = x * scale
    if use_relu:
        y = jnp.maximum(y, 0)
    return y.sum()


x_sharding = NamedSharding(mesh, P('data'))
scale_sharding = None

my_func_jit = nnx.jit(
    my_func,
    in_shardings=(x_sharding, scale_sharding),
    static_argnums=(2,)
)

# Example input
x = jnp.arange(16.0).reshape(4, 4)
scale = 0.5

print("With ReLU:", my_func_jit(x, scale, True))
print("Without ReLU:", my_func_jit(x, scale, False))


if __name__ == "__main__":
    assert float(my_func_jit(x, scale, True)) == 60.0
    assert float(my_func_jit(-x, scale, True)) == 0.0
    assert float(my_func_jit(-x, scale, False)) == -60.0
