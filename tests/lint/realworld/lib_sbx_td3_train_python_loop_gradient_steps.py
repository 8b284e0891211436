# source: https://github.com/araffin/sbx/blob/0f9163d1f3496515ceb707fa4d9f76c7f35b599f/sbx/td3/td3.py
#   (TD3 before commit e564074 "Added support for large values for gradient_steps to SAC,
#   TD3, and TQC (#21)", which replaces the Python loop of _train by lax.fori_loop; the
#   problem was reported in sbx#14: "Using the Jax implementation of SAC with larger values
#   of `gradient_steps`, e.g. 1000, is very slow to compile ... I think the problem lies in
#   unrolling the loop over too many gradient steps")
# observed on jax 0.10.2 CPU: the `for i in range(gradient_steps)` loop of the jitted
#   _train runs at trace time, so the compiled program holds one copy of update_critic and
#   soft_update per gradient step: 32 gradient steps give 32 update_critic calls in the
#   traced program, and compile time grows with gradient_steps. Kept verbatim:
#   update_critic, update_actor, soft_update, _train and the policy_delay_indices hack of
#   TD3.train. Stand-ins (sbx, stable_baselines3 and gymnasium are not installed):
#   RLTrainState and ReplayBufferSamplesNp are copied from sbx/common/type_aliases.py,
#   Actor and Critic are one-layer flax modules (the critic returns two stacked Q-values),
#   and train() keeps only the index hack, the data conversion and the _train call; the
#   policy's states live on the TD3 object itself.
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
        # Pre-compute the indices where we need to update the actor
        # This is a hack in order to jit the train loop
        # It will compile once per value of policy_delay_indices
        policy_delay_indices = {i: True for i in range(gradient_steps) if ((self._n_updates + i + 1) % self.policy_delay) == 0}
        policy_delay_indices = flax.core.FrozenDict(policy_delay_indices)  # type: ignore[assignment]

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
            policy_delay_indices,
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
        observations: np.ndarray,
        actions: np.ndarray,
        next_observations: np.ndarray,
        rewards: np.ndarray,
        dones: np.ndarray,
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

        def mse_loss(params, dropout_key):
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
        observations: np.ndarray,
        key: jax.Array,
    ):
        key, dropout_key = jax.random.split(key, 2)

        def actor_loss(params):
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
    def soft_update(tau: float, qf_state: RLTrainState, actor_state: RLTrainState):
        qf_state = qf_state.replace(target_params=optax.incremental_update(qf_state.params, qf_state.target_params, tau))
        actor_state = actor_state.replace(
            target_params=optax.incremental_update(actor_state.params, actor_state.target_params, tau)
        )
        return qf_state, actor_state

    @classmethod
    @partial(jax.jit, static_argnames=["cls", "gradient_steps"])
    def _train(
        cls,
        gamma: float,
        tau: float,
        gradient_steps: int,
        data: ReplayBufferSamplesNp,
        policy_delay_indices: flax.core.FrozenDict,
        target_policy_noise: float,
        target_noise_clip: float,
        qf_state: RLTrainState,
        actor_state: RLTrainState,
        key,
    ):
        actor_loss_value = jnp.array(0)

        for i in range(gradient_steps):  # expect: JIT303

            def slice(x, step=i):
                assert x.shape[0] % gradient_steps == 0
                batch_size = x.shape[0] // gradient_steps
                return x[batch_size * step : batch_size * (step + 1)]

            (
                qf_state,
                qf_loss_value,
                key,
            ) = TD3.update_critic(
                gamma,
                actor_state,
                qf_state,
                slice(data.observations),
                slice(data.actions),
                slice(data.next_observations),
                slice(data.rewards),
                slice(data.dones),
                target_policy_noise,
                target_noise_clip,
                key,
            )
            qf_state, actor_state = TD3.soft_update(tau, qf_state, actor_state)

            # hack to be able to jit (n_updates % policy_delay == 0)
            if i in policy_delay_indices:
                (actor_state, qf_state, actor_loss_value, key) = cls.update_actor(
                    actor_state,
                    qf_state,
                    slice(data.observations),
                    key,
                )

        return (
            qf_state,
            actor_state,
            key,
            (actor_loss_value, qf_loss_value),
        )


def count_calls(jaxpr, name):
    n = 0
    for eqn in jaxpr.eqns:
        if eqn.params.get("name") == name:
            n += 1
        if "jaxpr" in eqn.params and eqn.params.get("name") != name:
            inner = eqn.params["jaxpr"]
            n += count_calls(getattr(inner, "jaxpr", inner), name)
    return n


if __name__ == "__main__":
    gradient_steps = 32
    rng = np.random.default_rng(0)
    n = 4 * gradient_steps
    data = ReplayBufferSamplesNp(
        rng.normal(size=(n, 3)).astype(np.float32),
        rng.uniform(-1, 1, size=(n, 2)).astype(np.float32),
        rng.normal(size=(n, 3)).astype(np.float32),
        np.zeros(n, np.float32),
        rng.normal(size=n).astype(np.float32),
    )
    model = TD3(jax.random.key(0))
    model.train(2, ReplayBufferSamplesNp(*(x[:8] for x in data)))
    indices = flax.core.FrozenDict({i: True for i in range(gradient_steps) if (i + 1) % 2 == 0})
    closed = jax.make_jaxpr(
        lambda *args: TD3._train(model.gamma, model.tau, gradient_steps, *args))(
        data, indices, model.target_policy_noise, model.target_noise_clip,
        model.qf_state, model.actor_state, model.key)
    # observed: line 202 unrolls: one update_critic call per gradient step in the traced program
    assert count_calls(closed.jaxpr, "update_critic") == gradient_steps, count_calls(closed.jaxpr, "update_critic")
