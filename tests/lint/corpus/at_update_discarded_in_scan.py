import jax
import jax.numpy as jnp


def histogram(xs, bins):
    def step(h, x):
        h.at[x].add(1)  # expect: JIT503
        return h, None

    return jax.lax.scan(step, jnp.zeros(bins), xs)[0]


def histogram_ok(xs, bins):
    def step(h, x):
        return h.at[x].add(1), None

    return jax.lax.scan(step, jnp.zeros(bins), xs)[0]
