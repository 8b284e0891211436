import jax
import jax.numpy as jnp


@jax.jit
def matmul(a, b):
    assert a.shape[-1] == b.shape[0], (a.shape, b.shape)
    assert a.dtype == b.dtype
    return a @ b


@jax.jit
def probs(p):
    assert jnp.allclose(p.sum(), 1.0)  # expect: JIT103
    return jnp.log(p)
