# source: https://github.com/jax-ml/jax/issues/27545 (the example in the description)
# observed on jax 0.10.2 CPU: runs clean: the inlined inner jit returns JAX values again,
#   so `x.shape` works inside the outer jit (the AttributeError on a Python int is fixed).
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def bar(x):
    return jnp.array(1), x + 1

def foo(x):
   x, y = jax.jit(bar, inline=True)(x)
   x.shape

jax.jit(foo)(0)
