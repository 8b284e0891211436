# source: https://github.com/Ganesh172919/fluffy-waffle/blob/1d3bbc4731e22854ad82de941389cbe0b59d2e7e/jax-learning/jit_vmap.py
#   (a JAX learning course's script: a jitted function mapped with vmap)
# observed on jax 0.10.2 CPU: jax.vmap of the jitted f traces f once with a batched
#   tracer and returns sin(x) + cos(x) for the ten points, equal to the eager values.
#   Added: the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return jnp.sin(x) + jnp.cos(x)

xs = jnp.linspace(0.0, 3.14, 10)
ys = jax.vmap(f)(xs)

print(ys)


if __name__ == "__main__":
    assert jnp.allclose(ys, jnp.sin(xs) + jnp.cos(xs), atol=1e-6)
    assert ys.shape == (10,)
