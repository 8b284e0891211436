# source: https://github.com/jax-ml/jax/issues/9635
# observed on jax 0.10.2 CPU: `f(x, x)` raises JaxRuntimeError (INVALID_ARGUMENT: attempt to
#   use a buffer that was previously donated in the same call): x is donated as argument 0
#   and read again as argument 1 (in the report it hung on TPU and GPU).
# gap: other
import jax
import jax.numpy as jnp

def add(x, y):
  return x + y

f = jax.jit(add, donate_argnums=(0,))
x = jnp.zeros((10,), jnp.float32)

f(x, x)  # Hangs  # expect: JIT504
