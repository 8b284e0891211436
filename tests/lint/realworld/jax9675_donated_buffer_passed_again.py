# source: https://github.com/jax-ml/jax/issues/9675 (the 2025 comment's example of reusing a
#   donated buffer)
# observed on jax 0.10.2 CPU: the first f_jit(buf) donates buf; the second call raises
#   ValueError: INVALID_ARGUMENT: ... Buffer has been deleted or donated. Added: nothing.
# gap: other
import jax
import jax.numpy as jnp

print("Jax Version: ", jax.__version__)

buf = jax.numpy.array(1)

def f(x):
  return x+1

f_jit = jax.jit(f, donate_argnums=(0,))

f_jit(buf)
f_jit(buf)  # expect: JIT504
