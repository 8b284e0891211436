import jax
import jax.numpy as jnp


def norm_layer(x, kind, eps):
    if kind == "rms":
        return x / jnp.sqrt(jnp.mean(x**2, -1, keepdims=True) + eps)
    if eps < 1e-8:  # expect: JIT101
        eps = 1e-8
    return (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + eps)


norm_layer_jit = jax.jit(norm_layer, static_argnames="kind")
