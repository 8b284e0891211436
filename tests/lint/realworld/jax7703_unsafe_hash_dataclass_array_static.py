# source: https://github.com/jax-ml/jax/issues/7703
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   at the pmap call: the dataclass has unsafe_hash=True, but hashing it hashes its field,
#   a JAX array. (When the issue was filed pmap accepted it silently; the jit line the
#   report left commented out raises the same ValueError.)
# gap: static-hashability
import dataclasses
from typing import Any
import jax

@dataclasses.dataclass(unsafe_hash=True)
class C:
  x: Any

x = jax.numpy.zeros([1])
c = C(x)

# hash(c)  # unhashable type: 'DeviceArray'

def f(c, x):
  return x * c.x

# jax.jit(f, static_argnums=0)(c, x)  # unhashable type: 'DeviceArray'
jax.pmap(f, static_broadcasted_argnums=0)(c, x)  # expect: JIT302
