import jax
import jax.numpy as jnp
import optax


def cosine_with_restarts(step, base_lr, period):
    cycle_step = step % period
    if cycle_step == 0:  # expect: JIT101
        return base_lr
    return 0.5 * base_lr * (1 + jnp.cos(jnp.pi * cycle_step / period))


@jax.jit
def lr_at(step):
    return cosine_with_restarts(step, 1e-3, 1000)


schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-3, 100, 10_000)


@jax.jit
def lr_at_ok(step):
    return schedule(step)
