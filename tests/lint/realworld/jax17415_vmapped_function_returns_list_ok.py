# source: https://github.com/jax-ml/jax/issues/17415 (the report's "consistent / correct
#   behavior" version: h returns the list and the callers use what it returns)
# observed on jax 0.10.2 CPU: runs clean; f1() returns [9999] and f2() returns
#   [Array([9999, 9999])], the vmapped h's returned list batched over x.
# gap: exemption-vs-JAX
import jax
from jax import numpy as jnp
from jax import jit

def h(l, x):
        l[0]=9999
        return l         # <--------
def f1():
        l=[0]
        l = h(l, jnp.array([1,2]))       # <---------
        return l
def f2():
        l=[0]
        l = jax.vmap(h, (None,0))(l, jnp.array([1,2]))   # <---------
        return l
f1=jax.jit(f1)
f2=jax.jit(f2)

a = f1()
print("a: ", a)

a = f2()
print("a: ", a)

if __name__ == "__main__":
    assert int(f1()[0]) == 9999
    assert f2()[0].tolist() == [9999, 9999]
