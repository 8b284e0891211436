"""A module-level helper called from jitted code with traced arguments."""

import jax
import jax.numpy as jnp


def _clip_scalar(v, lo, hi):
    if v < lo:  # expect: JIT101
        return lo
    if v > hi:  # expect: JIT101
        return hi
    return v


def _feature_dim(x):
    if x.shape[-1] > 128:
        return 128
    return x.shape[-1]


@jax.jit
def policy_step(obs, action_scale):
    d = _feature_dim(obs)
    logits = obs[..., :d].sum(-1)
    return _clip_scalar(logits.mean() * action_scale, -1.0, 1.0)


def host_only(v):
    if v < 0:
        return 0
    return v


def summarize(values):
    return [host_only(v) for v in values]
