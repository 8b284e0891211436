# source: https://github.com/jax-ml/jax/issues/2264
# observed on jax 0.10.2 CPU: runs clean: vmap of grad of a function with lax.cond (the
#   report's IndexError was a JAX bug, since fixed) gives the same values as the
#   jnp.where version. Imports (`np` as jax.numpy) and the comparison are added.
# gap: exemption-vs-JAX
import jax.numpy as np
from jax import grad, lax, vmap

def f_1(x):
    return x ** 2

def f_2(x):
    return x ** 3


def f(x):
    y = lax.cond(x > 0, x, f_1, x, f_2)
    return y

def g(x):
    y = np.where(x > 0, f_1(x), f_2(x))
    return y

x = np.linspace(-1, 1, 20)
y = vmap(grad(f))(x)
print(y)

if __name__ == "__main__":
    assert np.allclose(y, vmap(grad(g))(x))
