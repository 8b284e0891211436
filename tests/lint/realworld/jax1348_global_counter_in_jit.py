# source: https://github.com/jax-ml/jax/issues/1348
# observed on jax 0.10.2 CPU: the jitted f() returns 1 on every call: the global is read
#   and written only while tracing.
# gap: stale-state-attributes
from jax import jit

g = 0

@jit
def f():
    global g
    g = g+1  # expect: JIT202  # tolerate: JIT201
    return g

f() # gives 1
f() # gives 1
f() # gives 1

if __name__ == "__main__":
    # observed: line 12 runs once: every call returns 1
    assert [int(f()) for _ in range(3)] == [1, 1, 1]
