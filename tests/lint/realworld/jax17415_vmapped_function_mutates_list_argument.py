# source: https://github.com/jax-ml/jax/issues/17415
# observed on jax 0.10.2 CPU: f1() returns [9999] but f2() returns [0]: vmap flattens the
#   list `l` (in_axes None) and calls h with a list rebuilt from its leaves, so the item
#   assignment in h (line 12) changes that copy and never reaches the caller's list. Under
#   f1, h is called directly inside the jitted function and changes f1's own list.
# gap: stale-state-attributes
import jax
from jax import numpy as jnp
from jax import jit

def h(l, x):
        l[0]=9999  # expect: JIT202
def f1():
        l=[0]
        h(l, jnp.array([1,2]))
        return l
def f2():
        l=[0]
        jax.vmap(h, (None,0))(l, jnp.array([1,2]))
        return l
f1=jax.jit(f1)
f2=jax.jit(f2)

a = f1()
print("a: ", a)

a = f2()
print("a: ", a)

if __name__ == "__main__":
    # observed: line 12 writes to a copy of the list under vmap: f2 returns the old 0
    assert int(f1()[0]) == 9999
    assert int(f2()[0]) == 0
