# source: https://github.com/google/flax/issues/1077 (the example in the description)
# observed on jax 0.10.2 CPU: model.init runs, but model.apply raises
#   ConcretizationTypeError at `jnp.arange(lg2)` ("It arose in the jnp.arange argument
#   'stop'"): apply traces the initializer again (flax checks the stored parameter's shape
#   against it under a trace), and there `jnp.log2(shape[0])` of the static 4096 is a
#   tracer. Added: the imports.
# gap: omnistaging
import jax.numpy as jnp
from jax import random
import flax.linen as nn


def hadamard(key, shape, dtype=jnp.float32):
    lg2 = jnp.log2(shape[0])
    H = jnp.ones((1, ), dtype=dtype)
    for i in jnp.arange(lg2):  # expect: JIT404
        H = jnp.vstack([jnp.hstack([H, H]), jnp.hstack([H, -H])])
    H = 2**(-lg2 / 2) * H
    return H

class HadamardTransform(nn.Module):
    n_hadamard: int
        
    @nn.compact
    def __call__(self, X):
        kernel = self.param("kernel", hadamard, (self.n_hadamard, ))
        z = jnp.dot(X, kernel)
        return z

# fake test data
key = random.PRNGKey(42)
X = random.normal(key, (1, 4096))

# Instantiating model
model = HadamardTransform(4096)
params = model.init(key, X)

model.apply(params, X)
