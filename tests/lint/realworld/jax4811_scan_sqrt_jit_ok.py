# source: https://github.com/jax-ml/jax/issues/4811
# observed on jax 0.10.2 CPU: runs clean; both Newton square roots give the same result
#   under jit (the reporter found the slowdown only without jit). Imports, the jitted calls
#   and the comparison are added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax.lax import scan

def sqrt_not_careful(x):
    def body(val, _):
        new_val = 0.5 * (val + x / val)
        return new_val, new_val
    
    res, _ = scan(body, jnp.ones_like(x), jnp.arange(10))
    return res

def sqrt_careful(x):
    def body(val, _):
        new_val = 0.5 * (val + x / val)
        return new_val, None
    
    res, _ = scan(body, jnp.ones_like(x), jnp.arange(10))
    return res

if __name__ == "__main__":
    x = jnp.linspace(1.0, 100.0, 1000)
    a = jax.jit(sqrt_not_careful)(x)
    b = jax.jit(sqrt_careful)(x)
    assert jnp.allclose(a, b) and jnp.allclose(a, jnp.sqrt(x), rtol=1e-4)
