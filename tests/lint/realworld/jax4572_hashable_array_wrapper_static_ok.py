# source: https://github.com/jax-ml/jax/issues/4572 (the maintainer's working example in
#   the thread: gnool_jit with a HashableArrayWrapper)
# observed on jax 0.10.2 CPU: runs clean: the array reaches jit wrapped in a type with
#   value-based __hash__ and __eq__, so f is traced once for the first x and not again for
#   an equal x; 're-tracing!' shows trace time, as the user means.
# gap: static-hashability
from functools import partial

from jax import jit
import jax.numpy as jnp

def some_hash_function(x):
  return int(jnp.sum(x))

class HashableArrayWrapper:
  def __init__(self, val):
    self.val = val
  def __hash__(self):
    return some_hash_function(self.val)
  def __eq__(self, other):
    return (isinstance(other, HashableArrayWrapper) and
            jnp.all(jnp.equal(self.val, other.val)))

def gnool_jit(fun, static_array_argnums=()):
  @partial(jit, static_argnums=static_array_argnums)
  def callee(*args):
    args = list(args)
    for i in static_array_argnums:
      args[i] = args[i].val
    return fun(*args)

  def caller(*args):
    args = list(args)
    for i in static_array_argnums:
      args[i] = HashableArrayWrapper(args[i])
    return callee(*args)

  return caller


###


@partial(gnool_jit, static_array_argnums=(0,))
def f(x):
  print('re-tracing!')  # tolerate: JIT203
  return x ** 2


x = jnp.array([1., 2., 3.])
f(x)
f(x)

x = jnp.array([1., 2., 3.])
f(x)

if __name__ == "__main__":
    import contextlib, io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = f(jnp.array([1., 2., 3.]))
    assert buf.getvalue() == "", buf.getvalue()
    assert out.tolist() == [1.0, 4.0, 9.0]
