# source: https://github.com/jax-ml/jax/issues/11979 (the example in the description)
# observed on jax 0.10.2 CPU: runs clean: the jitted myfun now returns the same 20 zeros as
#   the eager one (maxval is 1 everywhere); the XLA bug of the thread is fixed.
# gap: exemption-vs-JAX
import jax
import jax.random
import jax.numpy as jnp

def myfun(x, key):
    n = 20
    zeros = jnp.full((n,), 0)
    ones = jnp.full((n,), 1)
    maxval = x[ones] - 1
    return jax.random.randint(key, (n,), zeros, maxval)

key = jax.random.PRNGKey(1)
x = jnp.array([0, 2])
y1 = myfun(x, key)
y2 = jax.jit(myfun)(x, key)
print(y1)
print(y2)

if __name__ == "__main__":
    assert y1.tolist() == y2.tolist() == [0] * 20
