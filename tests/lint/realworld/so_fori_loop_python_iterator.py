# source: https://openillumi.com/en/en-jax-jit-iterator-vs-lax-foriloop (a Stack Overflow
#   question quoted in the article: the user's lax.fori_loop lines)
# observed on jax 0.10.2 CPU: the loop over the array prints 45, the loop whose body calls
#   next(iterator) prints 0: the body is traced once, so next() runs once at trace time and
#   its first value, 0, is baked in for all ten iterations. Added: the __main__ block.
# gap: stale-state-attributes
import jax.numpy as jnp
import jax.lax as lax
from jax import jit

# lax.fori_loop
array = jnp.arange(10)
print(lax.fori_loop(0, 10, lambda i,x: x+array[i], 0)) # outputs 45
iterator = iter(range(10))
print(lax.fori_loop(0, 10, lambda i,x: x+next(iterator), 0)) # outputs 0  # expect: JIT202

if __name__ == "__main__":
    # observed: line 15 consumes one element of the iterator, at trace time: sum 0, not 45
    it2 = iter(range(10))
    assert int(lax.fori_loop(0, 10, lambda i, x: x + next(it2), 0)) == 0  # tolerate: JIT202
    assert next(it2) == 1
