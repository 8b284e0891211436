import jax
import jax.numpy as jnp


def build_model():
    cache = {}
    seen = []

    @jax.jit
    def encode(x):
        h = jnp.tanh(x)
        cache["h"] = h  # expect: JIT202
        seen.append(1)  # tolerate: JIT202
        return h

    return encode, cache


def build_model_ok():
    @jax.jit
    def encode(x):
        scratch = {}
        scratch["h"] = jnp.tanh(x)
        return scratch["h"]

    return encode
