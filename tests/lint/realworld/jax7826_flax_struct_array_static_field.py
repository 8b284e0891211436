# source: https://github.com/jax-ml/jax/issues/7826
# observed on jax 0.10.2 CPU with flax 0.12.8: f(m) runs; f(n) raises ValueError: Exception
#   raised while checking equality of metadata fields of pytree (the field marked
#   pytree_node=False holds a NumPy array, which jit's cache compares with m's).
#   Added: nothing.
# gap: static-hashability
from jax import jit
from flax.struct import dataclass, field
import numpy as np

@dataclass
class Model():
    c: np.ndarray = field(pytree_node=False)

@jit
def f(model):
    return 1.0

m = Model(np.ones(10))
n = Model(np.ones(10))

f(m)
f(n)  # expect: JIT302
