# A module that imports nothing and starts with a decorated function.


@jax.jit
def f(x):
    print(x)
    return x
