# source: https://github.com/YannBerthelot/jaxppo/blob/926ce21/jaxppo/ppo_pure_rl.py (_env_step_pre_partial, _update_step_pre_partial, make_train after the fix "corrected rng handling": the runner rng is split for every action draw and env step)
# observed on jax 0.10.2 CPU: runs clean; with a fresh key per step the uniform policy varies its actions and the env noise differs at every step
# gap: flow-sensitive
# added: imports; stand-ins for distrax.Categorical, jaxppo.networks (Network, init_networks, init_actor_and_critic_state, optax adam instead of get_adam_tx) and a tiny gymnax-style env (reset/step with a key, noise returned in info) since gymnax/distrax are not installed; the stand-in actor starts with zero logits (uniform policy);
#   docstrings shortened; LogWrapper/FlattenObservationWrapper, wandb logging, learning-rate annealing and the GAE + PPO network update of _update_step_pre_partial are left out (the update returns the trajectory as its metric); the __main__ block.
from functools import partial
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState
from jax import random


# ---- stand-ins (not the user's code) ----
class Categorical:  # distrax.Categorical stand-in
    def __init__(self, logits):
        self.logits = logits

    def sample(self, seed):
        return jax.random.categorical(seed, self.logits)

    def log_prob(self, x):
        return jnp.take_along_axis(jax.nn.log_softmax(self.logits), x[..., None], -1)[..., 0]


class Network(nn.Module):
    actor: bool
    num_of_actions: int = 2

    @nn.compact
    def __call__(self, x):
        h = nn.tanh(nn.Dense(16)(x))
        if self.actor:
            return Categorical(nn.Dense(self.num_of_actions, kernel_init=nn.initializers.zeros)(h))
        return jnp.squeeze(nn.Dense(1)(h), axis=-1)


def init_networks(env, shared_network=False):
    return Network(actor=True, num_of_actions=env.num_actions), Network(actor=False)


def init_actor_and_critic_state(actor_network, critic_network, actor_key, critic_key, env, tx, env_params=None):
    obs = jnp.zeros((env.obs_dim,))
    actor = TrainState.create(params=actor_network.init(actor_key, obs), tx=tx, apply_fn=actor_network.apply)
    critic = TrainState.create(params=critic_network.init(critic_key, obs), tx=tx, apply_fn=critic_network.apply)
    return actor, critic


class NoisyEnv:  # gymnax-style env: reset(key, params), step(key, state, action, params)
    num_actions = 2
    obs_dim = 2

    def reset(self, key, params):
        pos = jax.random.uniform(key, (), minval=-0.05, maxval=0.05)
        return jnp.stack([pos, 0.0]), pos

    def step(self, key, state, action, params):
        noise = jax.random.normal(key, ())
        pos = state + (2.0 * action - 1.0) * 0.1 + 0.01 * noise
        done = jnp.abs(pos) > 1.0
        obs = jnp.stack([pos, noise])
        return obs, pos, jnp.float32(1.0), done, {"noise": noise}


# ---- user code ----
class Transition(NamedTuple):
    """Store transitions inside a buffer"""

    done: jnp.ndarray
    action: jnp.ndarray
    value: jnp.ndarray
    reward: jnp.ndarray
    log_prob: jnp.ndarray
    obs: jnp.ndarray
    info: jnp.ndarray


def _env_step_pre_partial(
    runner_state,
    _: Any,
    actor_network: Network,
    critic_network: Network,
    env,
    env_params,
    num_envs: int,
    shared_network: bool = False,
):
    """
    Step the environment (over num_envs envs) and collect the transitions the buffer\
          according to the current actor, critic and env states. Then updates env state
    """
    actor_state, critic_state, env_state, last_obs, rng = runner_state

    # SELECT ACTION
    if shared_network:
        pi, value = actor_network.apply(actor_state.params, last_obs)
    else:
        pi = actor_network.apply(actor_state.params, last_obs)
        value = critic_network.apply(critic_state.params, last_obs)
    rng, action_key = jax.random.split(rng)
    action = pi.sample(seed=action_key)
    log_prob = pi.log_prob(action)

    # STEP ENV
    rng, step_key = jax.random.split(rng)
    rng_step = jax.random.split(step_key, num_envs)
    obsv, env_state, reward, done, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
        rng_step, env_state, action, env_params
    )
    transition = Transition(done, action, value, reward, log_prob, last_obs, info)
    runner_state = (actor_state, critic_state, env_state, obsv, rng)
    return runner_state, transition


def _update_step_pre_partial(  # pylint: disable=R0913,R0914
    runner_state,
    _: Any,
    actor_network: Network,
    critic_network: Network,
    env,
    env_params,
    num_envs: int,
    num_steps: int,
    shared_network: bool,
):
    _env_step = partial(
        _env_step_pre_partial,
        actor_network=actor_network,
        critic_network=critic_network,
        env=env,
        env_params=env_params,
        num_envs=num_envs,
        shared_network=shared_network,
    )
    # COLLECT BATCH TRAJECTORIES
    runner_state, traj_batch = jax.lax.scan(_env_step, runner_state, None, num_steps)

    # (GAE and PPO update epochs left out)
    return runner_state, traj_batch


def make_train(total_timesteps, num_steps, num_envs, env_id, learning_rate,
               env_params=None, shared_network=False):
    num_updates = total_timesteps // num_steps // num_envs
    env = env_id

    def train(key):
        """Train the agent with the given random key and according to config"""
        # INIT NETWORK

        (
            rng,
            actor_key,
            critic_key,
        ) = random.split(key, num=3)
        actor_network, critic_network = init_networks(env=env, shared_network=shared_network)
        tx = optax.adam(learning_rate)

        actor_state, critic_state = init_actor_and_critic_state(
            actor_network=actor_network,
            critic_network=critic_network,
            actor_key=actor_key,
            critic_key=critic_key,
            env=env,
            tx=tx,
            env_params=env_params,
        )

        # INIT ENV
        rng, reset_key = jax.random.split(rng)
        reset_rng = jax.random.split(reset_key, num_envs)
        obsv, env_state = jax.vmap(env.reset, in_axes=(0, None))(reset_rng, env_params)

        # TRAIN LOOP

        runner_state = (
            actor_state,
            critic_state,
            env_state,
            obsv,
            rng,
        )
        _update_step = partial(
            _update_step_pre_partial,
            actor_network=actor_network,
            critic_network=critic_network,
            env=env,
            env_params=env_params,
            num_envs=num_envs,
            num_steps=num_steps,
            shared_network=shared_network,
        )
        runner_state, metrics = jax.lax.scan(_update_step, runner_state, None, num_updates)

        return runner_state, metrics

    return train


if __name__ == "__main__":
    num_steps, num_envs, num_updates = 8, 4, 3
    train = jax.jit(make_train(num_updates * num_steps * num_envs, num_steps, num_envs, NoisyEnv(), 3e-4))
    _, traj = train(random.PRNGKey(42))
    actions = traj.action.reshape(num_updates * num_steps, num_envs)
    noise = traj.info["noise"].reshape(num_updates * num_steps, num_envs)
    print("actions per env over all steps:", actions.T.tolist())
    assert not bool((actions == actions[0]).all()), "actions should vary between steps"
    assert len(set(noise[:, 0].tolist())) == num_updates * num_steps, "env noise should differ per step"
    print("fresh keys per step: actions and env noise vary")
