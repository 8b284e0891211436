# source: https://github.com/data-apis/array-api/pull/690 (the reviewer's JAX experiment)
# observed on jax 0.10.2 CPU: jnp.repeat(x, 2) runs under jit; jnp.repeat(x, x[2]) raises
#   ConcretizationTypeError (the number of repeats is a traced value).
# gap: flow-sensitive
import jax
import jax.numpy as jnp

x = jnp.arange(3)
jnp.repeat(x, 2)
jnp.repeat(x, 2, total_repeat_length=x.size*2)  # the documented way to allow JIT-ing

def func(x):
    return jnp.repeat(x, 2)

func(x)
# It's not actually needed to use `total_repeat_length` if `repeats` is a literal int:
jax.jit(func)(x)

# It is needed if we make `repeats` data-dependent:
def func(x):
    return jnp.repeat(x, x[2])  # expect: JIT404

func(x)
jax.jit(func)(x)
