# source: https://github.com/jax-ml/jax/issues/9024
# observed on jax 0.10.2 CPU: after m.data += 1 the jitted call still returns [0 1 2 3]:
#   the static argument is hashed by identity, so the changed attribute is never seen.
# gap: stale-state-attributes
import jax.numpy as jnp
from jax import jit
from jax.tree_util import register_pytree_node

class MyClass:
  def __init__(self, data):
    self.data = data

register_pytree_node(MyClass,
  lambda v: ((v.data,), None),
  lambda _, data: MyClass(*data))

m = MyClass(jnp.arange(4))

get_data = lambda x: x.data  # expect: JIT201
jit_get_data = jit(get_data, static_argnums=0)

print(get_data(m))
# [0 1 2 3]
print(jit_get_data(m))
# [0 1 2 3]

m.data += 1
print(get_data(m))
# [1 2 3 4]
print(jit_get_data(m))  # <-- does not trigger a cache miss in the JIT, despite different data!
# [0 1 2 3]

if __name__ == "__main__":
    # observed: line 19 reads an attribute of a static object that changed after tracing
    assert jit_get_data(m).tolist() == [0, 1, 2, 3]
    assert get_data(m).tolist() == [1, 2, 3, 4]
