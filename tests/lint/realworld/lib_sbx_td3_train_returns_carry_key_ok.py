# source: https://github.com/araffin/sbx/blob/42caa65fcbf4c74bd007d995baf0f4bdcdf7f42a/sbx/td3/td3.py
#   (TD3 after commit 42caa65 "Hotfix - Return the new updated key in function _train
#   (#46)", which returns update_carry["key"] instead of `key`)
# observed on jax 0.10.2 CPU: _train returns the key split inside its fori_loop, which
#   train() stores back into self.key, so every call of train() draws fresh keys (the
#   commit's regression test `assert not np.allclose(key_before_learn, model.key)` holds).
#   Kept verbatim: update_critic, update_actor, soft_update, _train, and the _train call of
#   TD3.train. Stand-ins (sbx, stable_baselines3 and gymnasium are not installed):
#   RLTrainState and ReplayBufferSamplesNp are copied from sbx/common/type_aliases.py,
#   Actor and Critic are one-layer flax modules (the critic returns two stacked Q-values),
#   and train() keeps only the data conversion and the _train call; the policy's states
#   live on the TD3 object itself.
# gap: other
from functools import partial
from typing import Any, Dict, NamedTuple, Tuple

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState


class RLTrainState(TrainState):  # type: ignore[misc]
    target_params: flax.core.FrozenDict  # type: ignore[misc]


class ReplayBufferSamplesNp(NamedTuple):
    observations: np.ndarray
    actions: np.ndarray
    next_observations: np.ndarray
    dones: np.ndarray
    rewards: np.ndarray


class Actor(nn.Module):
    # stand-in actor: tanh of one dense layer
    @nn.compact
    def __call__(self, x):
        return jnp.tanh(nn.Dense(2)(x))


class Critic(nn.Module):
    # stand-in critic: two stacked Q-values of shape (2, batch, 1)
    @nn.compact
    def __call__(self, x, a):
        q = nn.Dense(1)(jnp.concatenate([x, a], axis=-1))
        return jnp.stack([q, q + 1.0])


class TD3:
    def __init__(self, key):
        # stand-in for TD3.__init__/_setup_model: states, hyperparameters and key
        self.gamma, self.tau = 0.99, 0.005
        self.policy_delay, self._n_updates = 2, 0
        self.target_policy_noise, self.target_noise_clip = 0.2, 0.5
        self.key, actor_key, qf_key = jax.random.split(key, 3)
        obs, act = jnp.zeros((1, 3)), jnp.zeros((1, 2))
        actor, critic = Actor(), Critic()
        actor_params = actor.init(actor_key, obs)
        qf_params = critic.init(qf_key, obs, act)
        self.actor_state = RLTrainState.create(apply_fn=actor.apply, params=actor_params,
                                               target_params=actor_params, tx=optax.adam(1e-3))
        self.qf_state = RLTrainState.create(apply_fn=critic.apply, params=qf_params,
                                            target_params=qf_params, tx=optax.adam(1e-3))

    def train(self, gradient_steps, data):
        (
            self.qf_state,
            self.actor_state,
            self.key,
            (actor_loss_value, qf_loss_value),
        ) = self._train(
            self.gamma,
            self.tau,
            gradient_steps,
            data,
            self.policy_delay,
            (self._n_updates + 1) % self.policy_delay,
            self.target_policy_noise,
            self.target_noise_clip,
            self.qf_state,
            self.actor_state,
            self.key,
        )
        self._n_updates += gradient_steps

    @staticmethod
    @jax.jit
    def update_critic(
        gamma: float,
        actor_state: RLTrainState,
        qf_state: RLTrainState,
        observations: jax.Array,
        actions: jax.Array,
        next_observations: jax.Array,
        rewards: jax.Array,
        dones: jax.Array,
        target_policy_noise: float,
        target_noise_clip: float,
        key: jax.Array,
    ):
        key, noise_key, dropout_key_target, dropout_key_current = jax.random.split(key, 4)
        # Select action according to target net and add clipped noise
        next_state_actions = actor_state.apply_fn(actor_state.target_params, next_observations)
        noise = jax.random.normal(noise_key, actions.shape) * target_policy_noise
        noise = jnp.clip(noise, -target_noise_clip, target_noise_clip)
        next_state_actions = jnp.clip(next_state_actions + noise, -1.0, 1.0)

        #  Compute the next Q-values: min over all critics targets
        qf_next_values = qf_state.apply_fn(
            qf_state.target_params,
            next_observations,
            next_state_actions,
            rngs={"dropout": dropout_key_target},
        )

        next_q_values = jnp.min(qf_next_values, axis=0)
        # shape is (batch_size, 1)
        target_q_values = rewards.reshape(-1, 1) + (1 - dones.reshape(-1, 1)) * gamma * next_q_values

        def mse_loss(params: flax.core.FrozenDict, dropout_key: jax.Array) -> jax.Array:
            # shape is (n_critics, batch_size, 1)
            current_q_values = qf_state.apply_fn(params, observations, actions, rngs={"dropout": dropout_key})
            return 0.5 * ((target_q_values - current_q_values) ** 2).mean(axis=1).sum()

        qf_loss_value, grads = jax.value_and_grad(mse_loss, has_aux=False)(qf_state.params, dropout_key_current)
        qf_state = qf_state.apply_gradients(grads=grads)

        return (
            qf_state,
            qf_loss_value,
            key,
        )

    @staticmethod
    @jax.jit
    def update_actor(
        actor_state: RLTrainState,
        qf_state: RLTrainState,
        observations: jax.Array,
        key: jax.Array,
    ):
        key, dropout_key = jax.random.split(key, 2)

        def actor_loss(params: flax.core.FrozenDict) -> jax.Array:
            actor_actions = actor_state.apply_fn(params, observations)

            qf_pi = qf_state.apply_fn(
                qf_state.params,
                observations,
                actor_actions,
                rngs={"dropout": dropout_key},
            )
            # Take min among all critics (mean for droq)
            min_qf_pi = jnp.min(qf_pi, axis=0)
            actor_loss = -min_qf_pi.mean()
            return actor_loss

        actor_loss_value, grads = jax.value_and_grad(actor_loss, has_aux=False)(actor_state.params)
        actor_state = actor_state.apply_gradients(grads=grads)

        return actor_state, qf_state, actor_loss_value, key

    @staticmethod
    @jax.jit
    def soft_update(tau: float, qf_state: RLTrainState, actor_state: RLTrainState) -> Tuple[RLTrainState, RLTrainState]:
        qf_state = qf_state.replace(target_params=optax.incremental_update(qf_state.params, qf_state.target_params, tau))
        actor_state = actor_state.replace(
            target_params=optax.incremental_update(actor_state.params, actor_state.target_params, tau)
        )
        return qf_state, actor_state

    @classmethod
    @partial(jax.jit, static_argnames=["cls", "gradient_steps", "policy_delay", "policy_delay_offset"])
    def _train(
        cls,
        gamma: float,
        tau: float,
        gradient_steps: int,
        data: ReplayBufferSamplesNp,
        policy_delay: int,
        policy_delay_offset: int,
        target_policy_noise: float,
        target_noise_clip: float,
        qf_state: RLTrainState,
        actor_state: RLTrainState,
        key: jax.Array,
    ):
        assert data.observations.shape[0] % gradient_steps == 0
        batch_size = data.observations.shape[0] // gradient_steps

        carry = {
            "actor_state": actor_state,
            "qf_state": qf_state,
            "key": key,
            "info": {
                "actor_loss": jnp.array(0.0),
                "qf_loss": jnp.array(0.0),
            },
        }

        def one_update(i: int, carry: Dict[str, Any]) -> Dict[str, Any]:
            # Note: this method must be defined inline because
            # `fori_loop` expect a signature fn(index, carry) -> carry
            actor_state = carry["actor_state"]
            qf_state = carry["qf_state"]
            key = carry["key"]
            info = carry["info"]
            batch_obs = jax.lax.dynamic_slice_in_dim(data.observations, i * batch_size, batch_size)
            batch_act = jax.lax.dynamic_slice_in_dim(data.actions, i * batch_size, batch_size)
            batch_next_obs = jax.lax.dynamic_slice_in_dim(data.next_observations, i * batch_size, batch_size)
            batch_rew = jax.lax.dynamic_slice_in_dim(data.rewards, i * batch_size, batch_size)
            batch_done = jax.lax.dynamic_slice_in_dim(data.dones, i * batch_size, batch_size)
            (
                qf_state,
                qf_loss_value,
                key,
            ) = cls.update_critic(
                gamma,
                actor_state,
                qf_state,
                batch_obs,
                batch_act,
                batch_next_obs,
                batch_rew,
                batch_done,
                target_policy_noise,
                target_noise_clip,
                key,
            )
            qf_state, actor_state = cls.soft_update(tau, qf_state, actor_state)

            (actor_state, qf_state, actor_loss_value, key) = jax.lax.cond(
                (policy_delay_offset + i) % policy_delay == 0,
                # If True:
                cls.update_actor,
                # If False:
                lambda *_: (actor_state, qf_state, info["actor_loss"], key),
                actor_state,
                qf_state,
                batch_obs,
                key,
            )
            info = {"actor_loss": actor_loss_value, "qf_loss": qf_loss_value}

            return {
                "actor_state": actor_state,
                "qf_state": qf_state,
                "key": key,
                "info": info,
            }

        update_carry = jax.lax.fori_loop(0, gradient_steps, one_update, carry)

        return (
            update_carry["qf_state"],
            update_carry["actor_state"],
            update_carry["key"],
            (update_carry["info"]["actor_loss"], update_carry["info"]["qf_loss"]),
        )


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    data = ReplayBufferSamplesNp(
        rng.normal(size=(8, 3)).astype(np.float32),
        rng.uniform(-1, 1, size=(8, 2)).astype(np.float32),
        rng.normal(size=(8, 3)).astype(np.float32),
        np.zeros(8, np.float32),
        rng.normal(size=8).astype(np.float32),
    )
    model = TD3(jax.random.key(0))
    key_before_learn = model.key
    model.train(4, data)
    model.train(4, data)
    assert not np.array_equal(jax.random.key_data(key_before_learn), jax.random.key_data(model.key))
