# source: https://github.com/mfschubert/sparsejac/issues/7 (the reporter's MWE)
# observed on jax 0.10.2 CPU: ConcretizationTypeError in BCOO.fromdense, in setup, while
#   jax.jit(model.apply) traces: the number of stored elements is counted from the data of
#   jnp.eye(self.dim), which under jit is a tracer. `sparsejac.jacrev` is replaced by a
#   stand-in (jax.jacrev, densified) since the error comes before it is called.
# gap: omnistaging
import flax.linen as nn
import jax
from jax import numpy as jnp
from jax.experimental.sparse import BCOO


class sparsejac:  # stand-in for the sparsejac package
    @staticmethod
    def jacrev(fn, sparsity):
        return lambda x: BCOO.fromdense(jax.jacrev(fn)(x))


class Network(nn.Module):
    dim: int
    def setup(self):
        self.dense = nn.Dense(features = self.dim)
        self.sparsity = BCOO.fromdense(jnp.eye(self.dim))  # expect: JIT403
        fn = lambda x: self.dense(x)
        self.sparse_fn = sparsejac.jacrev(fn, self.sparsity)
    def __call__(self, x):
        return self.sparse_fn(x).todense()

dim = 2
model = Network(dim)
params = model.init(x = jnp.ones((dim,)), rngs = {'params': jax.random.PRNGKey(0)})
jit_model = jax.jit(model.apply)
jit_model(params, x = jnp.ones((dim,)))
