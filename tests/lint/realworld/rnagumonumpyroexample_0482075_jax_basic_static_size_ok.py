# source: https://github.com/rnagumo/numpyro_example/blob/04820753586658e621c6537ee63a29274f8f427e/myapp/notgood/jax_basic.py (a learner's first jit examples, after the Qiita post https://qiita.com/koshian2/items/44a871386576b4f80aff)
# observed on jax 0.10.2 CPU: runs clean: `static_jax_dot` builds its array from Python constants, and `variable_jax_dot` marks `size` static, so `jnp.arange(size ** 2)` and `.reshape(size, size)` get Python ints; one compilation per distinct size, none for a repeated size
# gap: exemption-vs-JAX
# (changed: `from jax import jit, partial` -> `from jax import jit` and `from functools import partial` (jax.partial was removed); added: the checks at the end of the __main__ block)
import jax.numpy as jnp
from jax import jit
from functools import partial


@jit
def static_jax_dot() -> jnp.ndarray:

    x = jnp.arange(25, dtype=jnp.float32).reshape(5, 5)
    x_gram = jnp.dot(x, x.T)
    return x_gram


@partial(jit, static_argnums=(0,))
def variable_jax_dot(size: int) -> jnp.ndarray:

    x = jnp.arange(size ** 2, dtype=jnp.float32).reshape(size, size)
    x_gram = jnp.dot(x, x.T)
    return x_gram


if __name__ == "__main__":
    x = static_jax_dot()
    print(x.block_until_ready())

    x = variable_jax_dot(5)
    print(x.block_until_ready())

    import numpy as np
    ref = np.arange(25, dtype=np.float32).reshape(5, 5)
    assert np.allclose(static_jax_dot(), ref @ ref.T)
    assert np.allclose(variable_jax_dot(5), ref @ ref.T)
    assert variable_jax_dot(3).shape == (3, 3)
    variable_jax_dot(5)
    assert variable_jax_dot._cache_size() == 2  # sizes 5 and 3
    print("OK")
