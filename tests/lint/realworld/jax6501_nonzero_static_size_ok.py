# source: https://github.com/jax-ml/jax/pull/6501 (the examples in the description)
# observed on jax 0.10.2 CPU: runs clean; with a static size jnp.nonzero has a fixed output
#   shape under jit and pads with zeros. `size` is keyword-only in jnp.nonzero now, so
#   `jit(jnp.nonzero, static_argnums=1)(x, 3)` is spelled with static_argnames="size".
# gap: exemption-vs-JAX
import jax.numpy as jnp
from jax import jit
x = jnp.array([0, 1, 1, 0, 0, 1])

# normal calling pattern still works
print(jnp.nonzero(x))

# pass a static size and it works with jit()
print(jit(jnp.nonzero, static_argnames="size")(x, size=3))

# if the size is too large, the result is zero-padded
print(jit(jnp.nonzero, static_argnames="size")(x, size=5))

if __name__ == "__main__":
    (idx,) = jit(jnp.nonzero, static_argnames="size")(x, size=5)
    assert idx.tolist() == [1, 2, 5, 0, 0]
