"""Piecewise learning-rate schedule written with Python branches on the step count."""

import jax
import jax.numpy as jnp

WARMUP = 1000
DECAY_START = 50_000


@jax.jit
def piecewise_lr(step, base_lr):
    if step < WARMUP:  # expect: JIT101
        return base_lr * step / WARMUP
    elif step < DECAY_START:  # expect: JIT101
        return base_lr
    else:
        return base_lr * jnp.exp(-(step - DECAY_START) / 10_000)


@jax.jit
def piecewise_lr_fixed(step, base_lr):
    warm = base_lr * step / WARMUP
    decayed = base_lr * jnp.exp(-(step - DECAY_START) / 10_000)
    return jnp.where(step < WARMUP, warm, jnp.where(step < DECAY_START, base_lr, decayed))
