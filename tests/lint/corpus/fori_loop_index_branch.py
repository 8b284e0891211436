import jax
import jax.numpy as jnp


@jax.jit
def warmup_sum(xs):
    def body(i, acc):
        w = 0.5 if i < 10 else 1.0  # expect: JIT101
        return acc + w * xs[i]

    return jax.lax.fori_loop(0, xs.shape[0], body, 0.0)


@jax.jit
def warmup_sum_ok(xs):
    def body(i, acc):
        return acc + jnp.where(i < 10, 0.5, 1.0) * xs[i]

    return jax.lax.fori_loop(0, xs.shape[0], body, 0.0)
