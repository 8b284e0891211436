# source: https://github.com/k-karna/learning_jax (a user's JIT notebook, cells 3-4 and 7)
# observed on jax 0.10.2 CPU: runs clean: a constant range and range(x.shape[0]) are
#   static loops, and the jitted function is reused for the second call.
# gap: flow-sensitive
from jax import grad, jit
import jax.numpy as jnp

@jit 
def f(x):
    for i in range(3):
        x = 2*x
    return x
print(f(3))

@jit 
def g(x):
    y = 0. 
    for i in range(x.shape[0]):
        y = y + x[i]
    return y
print(g(jnp.array([1., 2., 3.])))

@jit
def f(x):
  return x ** 2

# First call compiles the function
result1 = f(jnp.array([1., 2., 3.], dtype=jnp.float32))
print(result1)
# Second call reuses the compiled code
result2 = f(jnp.array([4., 5., 6.], dtype=jnp.float32))
print(result2)
