"""A custom optax GradientTransformation (update_fn is traced when the step is jitted)."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax


class ScaleByTrustRatioState(NamedTuple):
    count: jnp.ndarray


def scale_by_trust_ratio(min_norm=0.0):
    def init_fn(params):
        del params
        return ScaleByTrustRatioState(count=jnp.zeros([], jnp.int32))

    def update_fn(updates, state, params=None):
        if params is None:
            raise ValueError("params required")

        def _scale(u, p):
            p_norm = jnp.linalg.norm(p)
            u_norm = jnp.linalg.norm(u)
            ratio = jnp.where(p_norm > min_norm, p_norm / u_norm, 1.0)
            return u * ratio

        updates = jax.tree_util.tree_map(_scale, updates, params)
        return updates, ScaleByTrustRatioState(count=state.count + 1)

    return optax.GradientTransformation(init_fn, update_fn)


def make_optimizer(lr, warmup):
    schedule = optax.linear_schedule(0.0, lr, warmup)
    return optax.chain(optax.clip_by_global_norm(1.0), scale_by_trust_ratio(), optax.scale_by_learning_rate(schedule))
