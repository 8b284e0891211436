# source: https://github.com/Mathieu-van-Luijken/Lux-S3/blob/33373a1f7ea0d0d0073addc765cb5a20a06f1aeb/kits/python/loss.py (PPO loss of an agent for the Kaggle "NeurIPS 2024 - Lux AI Season 3" competition; the author replaced the Python list of observations by stacked arrays and jax.lax.dynamic_slice in c87b42c440475a88d7b00ec9dc272437ff783a68, "Fix dynamic slicing for the batch update")
# observed on jax 0.10.2 CPU: TracerIntegerConversionError at the `obs_batch = shuffled_obs[...]` line: inside the jax.lax.scan body batch_idx (and current_batch_size) are tracers, and a Python list cannot be sliced by them
# gap: types
# loss_fn is elided (never reached: the error comes first; a one-line stand-in keeps the name); the Trajectory dataclass is the one of kits/python/train.py at the
# same commit plus the advantages/returns attributes that train.py sets on it; the __main__ block (a 20-step trajectory of random observations and a tiny params
# pytree in place of the PPOAgent and the Lux environment) is added
import jax
import jax.numpy as jnp
from flax import linen as nn
from jax import random, grad, value_and_grad
import numpy as np
from typing import Any, Tuple
from dataclasses import dataclass
import optax


@dataclass
class Trajectory:
    observations: list
    actions: list
    log_probs: list
    rewards: list
    values: list


class PPOLoss(nn.Module):
    epsilon: float = 0.2
    gamma: float = 0.99
    lambda_: float = 0.95
    c1: float = 0.5
    c2: float = 0.01
    minibatch_size: int = 10
    learning_rate: float = 0.001

    def setup(self):
        self.optimizer = optax.adam(self.learning_rate)
        self.key = jax.random.PRNGKey(1480928)

    def __call__(self, params, trajectory, agent, key, opt_state):
        observations, actions, old_log_probs, advantages, returns = (
            trajectory.observations,
            trajectory.actions,
            trajectory.log_probs,
            trajectory.advantages,
            trajectory.returns,
        )

        num_samples = len(observations)
        perm = jax.random.permutation(key, num_samples)

        shuffled_obs = [observations[i] for i in perm]

        shuffled_actions = jnp.array([actions[i] for i in perm])
        shuffled_old_log_probs = jnp.array([old_log_probs[i] for i in perm])
        shuffled_advantages = jnp.array([advantages[i] for i in perm])
        shuffled_returns = jnp.array([returns[i] for i in perm])

        def batch_update(carry, batch_idx):
            params, opt_state = carry

            current_batch_size = jnp.minimum(
                self.minibatch_size, num_samples - batch_idx
            )
            obs_batch = shuffled_obs[batch_idx : batch_idx + current_batch_size]  # expect: JIT401
            actions_batch = jax.lax.dynamic_slice(
                shuffled_actions, (batch_idx,), (self.minibatch_size,)
            )
            old_log_probs_batch = jax.lax.dynamic_slice(
                shuffled_old_log_probs, (batch_idx,), (self.minibatch_size,)
            )
            advantages_batch = jax.lax.dynamic_slice(
                shuffled_advantages, (batch_idx,), (self.minibatch_size,)
            )
            returns_batch = jax.lax.dynamic_slice(
                shuffled_returns, (batch_idx,), (self.minibatch_size,)
            )

            loss, grads = value_and_grad(self.loss_fn)(
                params,
                agent,
                obs_batch,
                actions_batch,
                old_log_probs_batch,
                advantages_batch,
                returns_batch,
            )
            updates, opt_state = self.optimizer.update(grads, opt_state)
            params = optax.apply_updates(params, updates)
            return (params, opt_state), loss

        (params, opt_state), losses = jax.lax.scan(
            lambda carry, batch_idx: batch_update(carry, batch_idx),
            (params, opt_state),
            jnp.arange(0, num_samples, self.minibatch_size),
        )
        return params, opt_state, jnp.mean(losses)

    def loss_fn(self, params, agent, obs_batch, actions_batch, old_log_probs_batch,
                advantages_batch, returns_batch):
        raise NotImplementedError("stand-in: elided, never reached")

    def calculate_advantage(self, trajectory):
        rewards = jnp.array(trajectory.rewards)
        values = jnp.array(trajectory.values)
        next_values = jnp.append(values[1:], 0)
        deltas = rewards + self.gamma * next_values - values
        advantages = jnp.zeros_like(rewards, dtype=jnp.float32)
        adv = 0
        for t in reversed(range(len(rewards))):
            adv = deltas[t] + self.gamma * self.lambda_ * adv
            advantages = advantages.at[t].set(adv)
        returns = advantages + values
        return advantages, returns


if __name__ == "__main__":
    rs = np.random.RandomState(0)
    n = 20
    trajectory = Trajectory(
        observations=[jnp.asarray(rs.randn(24, 24), dtype=jnp.float32) for _ in range(n)],
        actions=[jnp.asarray(rs.randint(0, 6, (16, 3)), dtype=jnp.int32) for _ in range(n)],
        log_probs=[jnp.asarray(rs.randn(16), dtype=jnp.float32) for _ in range(n)],
        rewards=[float(r) for r in rs.randn(n)],
        values=[float(v) for v in rs.randn(n)],
    )
    ppo_loss = PPOLoss()
    trajectory.advantages, trajectory.returns = (
        ppo_loss.calculate_advantage(trajectory)
    )
    params = {"w": jnp.zeros((4,))}
    opt_state = optax.adam(learning_rate=3e-4).init(params)
    key = jax.random.PRNGKey(2504)
    params, opt_state, batch_loss = ppo_loss(
        params=params,
        trajectory=trajectory,
        agent=None,
        key=key,
        opt_state=opt_state,
    )
