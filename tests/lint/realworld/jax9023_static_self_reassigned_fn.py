# source: https://github.com/jax-ml/jax/issues/9023
# observed on jax 0.10.2 CPU: t.wrapper(1) still returns 2 after t.fn is replaced:
#   self is static and hashed by identity, so the cached trace keeps the old self.fn.
# gap: stale-state-attributes
from jax import jit
from functools import partial

class test:
    def __init__(self) -> None:
        pass
    @partial(jit, static_argnums=(0,))
    def wrapper(self,x):
        return self.fn(x)  # expect: JIT201
    def assign_fn(self,fn):
        self.fn = fn

t = test()

fn = lambda x: x + 1
t.assign_fn(fn)
print(t.wrapper(1)) # prints 2, as expect

fn = lambda x: x + 2
t.assign_fn(fn)
print(t.wrapper(1)) # stills prints 2, although it should print 3
print(t.fn(1)) # prints 3
print(t.wrapper(1)) # stills prints 2

if __name__ == "__main__":
    # observed: line 13 reads a stale attribute of the static self
    assert int(t.wrapper(1)) == 2 and t.fn(1) == 3
