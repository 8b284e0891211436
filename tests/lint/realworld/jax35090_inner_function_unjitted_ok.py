# source: https://github.com/jax-ml/jax/issues/35090 (the reporter's working variant: "If I
#   remove `jit` from `add1`, it works fine")
# observed on jax 0.10.2 CPU: runs clean; without the inner jit, `add1(k)` on the static
#   k=5 is the Python int 6 while tracing and `my_arange(5)` returns arange(6). Added: the
#   imports and the check of the result.
# gap: omnistaging
import functools

import jax
import jax.numpy as jnp


def add1(i):
    return i+1

@functools.partial(jax.jit, static_argnums=(0,))
def my_arange(k):
    return jnp.arange(add1(k))

out = my_arange(5)
assert out.shape == (6,)
