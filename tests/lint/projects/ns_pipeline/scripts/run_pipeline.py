import jax
import jax.numpy as jnp

from pipeline.stages import smooth
from pipeline.stages.scale import standardise
from pipeline.stages.smooth import ema_body_fixed, sample_noise
from pipeline.stages.window import window_sum, window_sum_fixed


@jax.jit
def smooth_all(xs):
    _, ys = jax.lax.scan(smooth.ema_body, 0.0, xs)
    return ys


@jax.jit
def smooth_all_fixed(xs):
    _, ys = jax.lax.scan(ema_body_fixed, 0.0, standardise(xs))
    return ys


@jax.jit
def noisy(key, n_unused=None):
    a = sample_noise(key, 3)
    b = sample_noise(key, 3)  # expect: JIT502
    return a + b


def windows(xs):
    return jax.jit(window_sum, static_argnums=1)(xs, 3), jax.jit(window_sum_fixed, static_argnums=1)(xs, 3)
