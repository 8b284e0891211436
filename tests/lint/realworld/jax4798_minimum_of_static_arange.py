# source: https://github.com/jax-ml/jax/issues/4798
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jnp.arange: `n` is static and
#   `jnp.shape(x)[0]` is a Python int, but under jit jnp.minimum of them returns a tracer
#   (the print shows <class 'int'> <class 'int'> and a tracer class). The print of types
#   is the user's deliberate trace-time probe, so it is tolerated.
# gap: omnistaging
import jax.numpy as jnp
import jax
from functools import partial

@partial(jax.jit, static_argnums=(0,))
def foo(n, x):
    n_aval = jnp.shape(x)[0]
    n_actual = jnp.minimum(n_aval, n)
    print(type(n), type(n_aval), type(n_actual))  # tolerate: JIT203
    return jnp.arange(n_actual)  # expect: JIT404

n = 5
x = jnp.arange(10)
foo(n,x)
