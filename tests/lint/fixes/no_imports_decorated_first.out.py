# A module that imports nothing and starts with a decorated function.


import jax
@jax.jit
def f(x):
    jax.debug.print("{}", x)
    return x
