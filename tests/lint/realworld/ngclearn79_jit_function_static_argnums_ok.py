# source: https://github.com/NACLab/ngc-learn/pull/79 (the reviewer's working example: the
#   function argument marked static with functools.partial)
# observed on jax 0.10.2 CPU: runs clean: `method` is static, so each function is hashed
#   and traced once, and `method(base)` is an ordinary Python call while tracing.
# gap: exemption-vs-JAX
from jax import jit
from functools import partial

def func1(foo):
    return foo * 2

def func2(foo):
    return foo * 3

@partial(jit, static_argnums=(1))
def root(base, method):
    return method(base)

root(3, func1)

root(3, func2)

if __name__ == "__main__":
    assert int(root(3, func1)) == 6 and int(root(3, func2)) == 9
