# source: https://github.com/jax-ml/jax/issues/5233 (the function in the question, answered
#   as side-effect free; `return x_copy` added in place of "# do things with x_copy")
# observed on jax 0.10.2 CPU: runs clean: rebinding a local name inside the jitted function
#   touches no outer state, and the input array is unchanged after the call.
# gap: flow-sensitive
import jax.numpy as jnp
from jax import jit

@jit 
def func(x):
    x_copy = x
    x_copy = x_copy ** 2
    # do things with x_copy
    return x_copy

if __name__ == "__main__":
    x = jnp.arange(3.0)
    assert func(x).tolist() == [0.0, 1.0, 4.0]
    assert x.tolist() == [0.0, 1.0, 2.0]
