# source: https://github.com/jax-ml/jax/issues/28418
# observed on jax 0.10.2 CPU: after obj.a = 2 the second obj.f() still returns 2 (it does
#   not trace again); the reporter saw 2 or 3 at random. Added: the __main__ check.
# gap: stale-state-attributes
import jax
from functools import partial

class MyClass:
    def __init__(self):
        self.a = 1
    @partial(jax.jit, static_argnums=0)
    def f(self):
        print('tracing')  # tolerate: JIT203
        return self.a + 1  # expect: JIT201
    def __hash__(self):
        return hash(self.a)

obj = MyClass()
print(obj.f())
obj.a = 2
print(obj.f())

if __name__ == "__main__":
    obj = MyClass()
    first = int(obj.f())
    obj.a = 2
    # observed: line 14 keeps the value of self.a read when f was traced
    assert (first, int(obj.f())) == (2, 2), (first, obj.f())
