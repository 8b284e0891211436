# source: https://openillumi.com/?p=120704 (a Stack Overflow question retold: apply a
#   function to `x[:index]` and assign the result back, under jax.jit)
# observed on jax 0.10.2 CPU: `fun(x, 3)` raises IndexError (array slice indices must have
#   static start/stop/step) at `x[:index]`: `index` is traced. The same line also assigns
#   into a JAX array, which JAX refuses (JIT501), but the slice fails first. Imports, a
#   stand-in `other_fun` (the question leaves it out) and the call are added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def other_fun(v):
    return v * 2.0


@jax.jit
def fun(x, index):
    x[:index] = other_fun(x[:index])  # expect: JIT404  # tolerate: JIT501
    return x


fun(jnp.arange(6.0), 3)
