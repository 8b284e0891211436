import jax
import jax.numpy as jnp


def fill(n):
    def body(i, buf):
        buf[i] = i * 2  # expect: JIT501
        return buf

    return jax.lax.fori_loop(0, n, body, jnp.zeros(n))


def fill_ok(n):
    def body(i, buf):
        return buf.at[i].set(i * 2)

    return jax.lax.fori_loop(0, n, body, jnp.zeros(n))
