# source: https://github.com/jax-ml/jax/pull/24511 (the example in the description;
#   `import jax.numpy as jnp` is added)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if x > 0:`: jax.remat traces
#   its arguments like jit does, so f(3.) fails even without jit.
# gap: other
import jax
import jax.numpy as jnp

@jax.remat
def f(x):
  if x > 0:  # expect: JIT101
    return x
  else:
    return jnp.sin(x)

f(3.)
