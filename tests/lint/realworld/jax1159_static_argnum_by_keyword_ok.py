# source: https://github.com/jax-ml/jax/issues/1159
# observed on jax 0.10.2 CPU: runs clean: jit now maps `d=4` given by keyword to the
#   static position 3 (the report's TypeError is gone), so `if d > 0` sees a Python int;
#   the maintainer's wrapper `f` around `_f` works as well. The calls are added.
# gap: static-hashability
from functools import partial
from jax import jit

@partial(jit, static_argnums=(3,))
def f(a, b, c, d):
  if d > 0:
    return a + b - c
  else:
    return d

print(f(a=1, b=2, c=3, d=4), f(1, 2, 3, 4))

@partial(jit, static_argnums=(3,))
def _f(a, b, c, d):
  if d > 0:
    return a + b - c
  else:
    return d

def f(a, b, c, d):
  return _f(a, b, c, d)

if __name__ == "__main__":
    assert int(f(a=1, b=2, c=3, d=-4)) == -4 and int(f(1, 2, 3, 4)) == 0
