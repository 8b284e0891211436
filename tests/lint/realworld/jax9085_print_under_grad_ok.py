# source: https://github.com/jax-ml/jax/issues/9085 (indentation of `return mu` restored)
# observed on jax 0.10.2 CPU: runs clean; under grad alone (no jit) the prints run on every
#   call and astype(int) works.
# gap: exemption-vs-JAX
import jax
from jax import numpy as jnp

def func(mu):

  print((mu.astype(float)))
  print(mu)
  print(mu.astype(int))

  return mu

f = jax.grad(func)

print(f(jnp.array(5.0)))
print(f(jnp.array(6.0)))
