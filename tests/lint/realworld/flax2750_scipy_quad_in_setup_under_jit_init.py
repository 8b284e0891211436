# source: https://github.com/google/flax/issues/2750 (the reporter's module and call)
# observed on jax 0.10.2 CPU (flax 0.12.8, scipy): `jax.jit(model.init_with_output)` runs
#   `setup` in the trace, where every jnp operation returns a tracer even on Python
#   floats: scipy.integrate.quad gets a traced value back from the integrand and raises
#   ConcretizationTypeError ("Abstract tracer value encountered where concrete value is
#   expected: Traced<ShapedArray(float32[], weak_type=True)>", as reported). Added: `import
#   jax`, `jax.numpy` and `scipy.integrate`; stand-ins for what the report elided: the integrand `fn` (jnp
#   operations on its Python-float arguments, which the reported weak-typed float32 tracer
#   implies), a `__call__` applying `self.layer`, and `key`/`batch`.
# gap: omnistaging
import jax
import jax.numpy as jnp
import flax.linen as nn
import numpy as np
import scipy as sp
import scipy.integrate
from flax.linen.initializers import variance_scaling


def fn(x, scale):
    return scale * x ** 2 * jnp.exp(-x ** 2 / 2) / jnp.sqrt(2 * jnp.pi)


class Model(nn.Module):

    depth: int = 1000

    def setup(self):
        self.variance = sp.integrate.quad(fn, -np.inf, +np.inf, 1 / self.depth)  # expect: JIT402

        def kernel_init():
            return variance_scaling(self.variance, 'fan_in', 'normal')

        self.layer = nn.Dense(features=10, kernel_init=kernel_init)

    def __call__(self, x):
        return self.layer(x)


key = jax.random.PRNGKey(0)
batch = jnp.ones((4, 3))

model = Model()
jax.jit(model.init_with_output)(key, batch)
# jax._src.errors.ConcretizationTypeError:
#     Abstract tracer value encountered where concrete value is expected:
#         Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(level=0/1)>
