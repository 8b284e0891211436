# source: https://github.com/jax-ml/jax/issues/19867 (with the maintainers' fix:
#   jax.effects_barrier() before the process exits)
# observed on jax 0.10.2 CPU: runs clean and prints every step of the scan.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def scanner(carry, x):
  jax.debug.print("carry={carry} x={x}", carry=carry, x=x)
  return carry + x, x


out = jax.lax.scan(scanner, jnp.array(0.), jnp.arange(10.))
jax.effects_barrier()
