# source: https://github.com/jax-ml/jax/issues/6233
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (a JAX array, from jnp.add, passed where static_argnums=0 expects a hashable value).
# gap: static-hashability
import jax.numpy as jnp
from jax import jit


def f(x):
    return jnp.arange(-x, x)


f_jit = jit(f, static_argnums=0)

x_int = int(5)
arange = f(x_int)
arange_jit = f_jit(x_int)

x_device_array = jnp.add(4, 1)
arange = f(x_device_array)
arange_jit = f_jit(x_device_array)  # expect: JIT302
