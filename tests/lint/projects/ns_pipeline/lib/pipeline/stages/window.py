import jax.numpy as jnp


def window_sum(xs, width):
    out = jnp.zeros(xs.shape[0] - width + 1)
    for i in range(out.shape[0]):
        out[i] = xs[i : i + width].sum()  # expect: JIT501
    return out


def window_sum_fixed(xs, width):
    return jnp.convolve(xs, jnp.ones(width), mode="valid")
