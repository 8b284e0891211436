# source: https://github.com/google/flax/issues/4146
# observed on jax 0.10.2 CPU with flax 0.12.8: runs clean and returns 1. With flax 0.8.5
#   (the report) nnx.jit ignored static_argnames for an argument passed positionally and
#   `if cond:` raised TracerBoolConversionError; nnx.jit now treats `cond` as static
#   however it is passed, like jax.jit.
# gap: exemption-vs-JAX
from functools import partial

import jax.numpy as jnp
from flax import nnx


@partial(nnx.jit, static_argnames=("cond",))
def f(x, cond):
    if cond:
        return x
    else:
        return x + 1

f(jnp.array(1), True)


if __name__ == "__main__":
    assert int(f(jnp.array(1), True)) == 1
    assert int(f(jnp.array(1), False)) == 2
    assert int(f(jnp.array(1), cond=False)) == 2
