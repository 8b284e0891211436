# source: https://github.com/jax-ml/jax/issues/5351
# observed on jax 0.10.2 CPU: runs clean: jit now binds the default of a static positional
#   parameter left out by the caller (the report's IndexError is gone), and `y` stays a
#   Python int. Imports and the check are added (`from jax import partial` is spelled
#   `functools.partial`).
# gap: static-hashability
from functools import partial

from jax import jit

@partial(jit, static_argnums=1)
def f(x, y=0):
    return x + y

f(5)

if __name__ == "__main__":
    assert int(f(5)) == 5 and int(f(5, 2)) == 7
