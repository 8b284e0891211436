# source: https://github.com/enerrio/jax-101/blob/484619d0774cab1608b512f041ef06bfed2428d5/exercise-solutions.ipynb
#   (the "Jax 101" tutorial's exercise solutions, Exercise 4 "Jit", the cells on
#   static_argnums: f, its two jitted versions, and the cell that creates the data and
#   compiles both). Added: the notebook's first-cell imports trimmed to those used; the
#   `%timeit` cell is replaced by the __main__ block.
# observed on jax 0.10.2 CPU: x and y are drawn from the same key with the same shape, so
#   the "two" random inputs of the timing benchmark are the identical array (y == x
#   everywhere), and f_jitted(x, y) computes x**2 + x**0.5 - x**3. The jitted calls
#   themselves run fine (xnew = 2.0 is a hashable static argument).
# gap: other
import jax
from jax import random
from jax import jit
import jax.numpy as jnp


# static argnums
def f(x, y):
    return x**2 + x**0.5 - y**3


f_jitted = jit(f)
f_staticargnum_jitted = jit(f, static_argnums=(0,))

# Create data and compile function
key = random.key(0)

x = random.normal(key, (1_000_000, 100))
y = random.normal(key, (1_000_000, 100))  # expect: JIT502
xnew = 2.0
ynew = jnp.array(3.0)


_ = f_jitted(x, y) # compile function
_ = f_staticargnum_jitted(xnew, ynew)


if __name__ == "__main__":
    # observed: line 29 draws y from the key that the draw of x already consumed: y equals x
    assert bool(jnp.array_equal(x, y))
    print("x and y are the same array")
    f_jitted(x, y).block_until_ready()
    f_staticargnum_jitted(xnew, ynew).block_until_ready()
