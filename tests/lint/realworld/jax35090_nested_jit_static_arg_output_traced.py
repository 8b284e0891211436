# source: https://github.com/jax-ml/jax/issues/35090
# observed on jax 0.10.2 CPU: `my_arange(5)` raises ConcretizationTypeError in jnp.arange
#   (argument `stop`): inside the outer trace, the inner jitted `add1` returns a tracer even
#   though its argument is static, so `jnp.arange(add1(k))` gets a traced length. Added:
#   the imports.
# gap: omnistaging
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(0,))
def add1(i):
    return i+1

@functools.partial(jax.jit, static_argnums=(0,))
def my_arange(k):
    return jnp.arange(add1(k))  # expect: JIT404

my_arange(5)
