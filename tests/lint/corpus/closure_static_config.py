"""Closures over static Python configuration."""

import jax
import jax.numpy as jnp


def make_loss(kind="mse", reduction="mean", weights=None):
    @jax.jit
    def loss(pred, target):
        if kind == "mse":
            err = (pred - target) ** 2
        elif kind == "l1":
            err = jnp.abs(pred - target)
        else:
            raise ValueError(kind)
        if weights is not None:
            err = err * weights
        return err.mean() if reduction == "mean" else err.sum()

    return loss


def make_policy(n_actions, epsilon):
    def act(key, q_values):
        if n_actions == 1:
            return jnp.zeros((), jnp.int32)
        explore = jax.random.uniform(key) < epsilon
        return jnp.where(explore, jax.random.randint(key, (), 0, n_actions), jnp.argmax(q_values))  # expect: JIT502

    return jax.jit(act)
