# source: https://github.com/jax-ml/jax/issues/22881
# observed on jax 0.10.2 CPU: runs clean; the jitted and eager vmaps of f1 and f2 agree
#   (the report saw differences of 1.1e-16, one float64 ulp, under jit: roundoff from
#   compiled code, not a tracing bug). Added: the bound on the
#   difference.
# gap: exemption-vs-JAX
from jax import jit, vmap, config
import jax.numpy as jnp
config.update("jax_enable_x64", True)

def f1(x):
    return jnp.cos(x/2)

def f2(x):
    return jnp.cos(x/2) + 0 * jnp.sin(x/2)

xs = jnp.linspace(-2, 2, 101) 
print(vmap(f1)(xs) - vmap(f2)(xs))

print(jit(vmap(f1))(xs) - jit(vmap(f2))(xs))

if __name__ == "__main__":
    assert float(jnp.max(jnp.abs(jit(vmap(f1))(xs) - jit(vmap(f2))(xs)))) < 1e-15
