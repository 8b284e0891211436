import jax
import jax.numpy as jnp


@jax.jit
def conv1d_naive(x, w):
    out = jnp.zeros(1024)
    for i in range(1024):  # expect: JIT303
        acc = 0.0
        for j in range(3):
            acc = acc + x[i + j] * w[j]
        out = out.at[i].set(acc)
    return out


@jax.jit
def conv1d_ok(x, w):
    return jnp.convolve(x, w, mode="valid")[:1024]
