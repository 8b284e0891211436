# source: https://github.com/EmptyJackson/groove/blob/0c091c039deceb12ad57ae50a16972f1821fb710/environments/rollout.py
# observed on jax 0.10.2 CPU: eval_agent (agents/agents.py at the same commit) run under
#   jax.jit, as meta/train.py runs it inside the jitted LPG update, resets four workers
#   and rolls out the actor with vmap over single_rollout and lax.scan over the episode,
#   splitting the key at every step; `eval` reaches single_rollout as a Python bool
#   through vmap's in_axes None, so the rollout length stays static. Runs clean, and
#   the four workers draw different episodes. Kept verbatim: RolloutWrapper with the
#   file's docstring (`from environments.environments import get_env` and
#   `from util import *` replaced by the stand-in get_env and Transition, flax and optax
#   imports added for the stand-ins), Transition (util/data.py), eval_agent and
#   _create_train_state (agents/agents.py). Stand-ins: get_env returns a small gymnax-style catch
#   environment (gymnax is not installed), create_optimizer is optax.adam behind
#   clip_by_global_norm, and Actor is a one-layer flax policy that returns action
#   probabilities, as groove's Actor does. The __main__ block is the collector's; its three
#   evaluation keys first came from split(rng, 3) and rng was then split again, whose
#   first key equals the first evaluation key on jax 0.10.2 (a real reuse the linter
#   reported): they come from a key split off first now.
# gap: other
"""
Based on Gymnax experimental/rollout.py
"""
import jax
import jax.numpy as jnp

from typing import Optional

import flax.linen as nn
import optax
from flax import struct
from flax.training.train_state import TrainState


class CatchState(struct.PyTreeNode):
    ball_x: jnp.ndarray
    ball_y: jnp.ndarray
    paddle_x: jnp.ndarray


class CatchStandIn:
    # stand-in for the gymnax environments get_env builds: 5 columns, 6 rows
    def reset(self, rng, params):
        ball_x = jax.random.randint(rng, (), 0, 5)
        state = CatchState(ball_x, jnp.array(0), jnp.array(2))
        return self.get_obs(state), state

    def step(self, rng, state, action, params):
        paddle_x = jnp.clip(state.paddle_x + action - 1, 0, 4)
        ball_y = state.ball_y + 1
        done = ball_y >= 5
        reward = jnp.where(done, jnp.where(paddle_x == state.ball_x, 1.0, -1.0), 0.0)
        new_state = CatchState(state.ball_x, ball_y, paddle_x)
        reset_obs, reset_state = self.reset(rng, params)
        next_state = jax.tree.map(
            lambda a, b: jnp.where(done, a, b), reset_state, new_state)
        return self.get_obs(next_state), next_state, reward, done, {}

    def get_obs(self, state):
        return jnp.concatenate([
            jax.nn.one_hot(state.ball_x, 5), jax.nn.one_hot(state.ball_y, 6),
            jax.nn.one_hot(state.paddle_x, 5)])


def get_env(env_name, env_kwargs):
    return CatchStandIn()


@struct.dataclass
class Transition:
    obs: jnp.ndarray
    action: jnp.ndarray
    reward: jnp.ndarray
    next_obs: jnp.ndarray
    done: jnp.ndarray


class RolloutWrapper:
    def __init__(
        self,
        env_name: str = "Pendulum-v1",
        train_rollout_len: Optional[int] = None,
        eval_rollout_len: Optional[int] = None,
        env_kwargs: dict = {},
        return_info: bool = False,
    ):
        """
        env_name (str): Name of environment to use.
        train_rollout_len (int): Number of steps to rollout during training.
        eval_rollout_len (int): Number of steps to rollout during evaluation.
        env_kwargs (dict): Static keyword arguments to pass to environment, same for all agents.
        return_info (bool): Return rollout information.
        """
        self.env_name = env_name
        self.env_kwargs = env_kwargs
        # Define the RL environment & network forward function
        self.env = get_env(env_name, env_kwargs)
        self.train_rollout_len = train_rollout_len
        self.eval_rollout_len = eval_rollout_len
        self.return_info = return_info

    # --- ENVIRONMENT RESET ---
    def batch_reset(self, rng, env_params, num_workers):
        """Reset a single environment for multiple workers, returning initial states and observations."""
        rng = jax.random.split(rng, num_workers)
        batch_reset_fn = jax.vmap(self.env.reset, in_axes=(0, None))
        return batch_reset_fn(rng, env_params)

    # --- ENVIRONMENT ROLLOUT ---
    def batch_rollout(
        self, rng, train_state, env_params, init_obs, init_state, eval=False
    ):
        """Evaluate an agent on a single environment over a batch of workers."""
        rng = jax.random.split(rng, init_obs.shape[0])
        return jax.vmap(self.single_rollout, in_axes=(0, None, None, 0, 0, None))(
            rng, train_state, env_params, init_obs, init_state, eval
        )

    def single_rollout(
        self, rng, train_state, env_params, init_obs, init_state, eval=False
    ):
        """Rollout an episode."""

        def policy_step(state_input, _):
            rng, obs, state, train_state, cum_reward, valid_mask = state_input
            rng, _rng = jax.random.split(rng)
            action_probs = train_state.apply_fn({"params": train_state.params}, obs)
            action = jax.random.choice(_rng, action_probs.shape[-1], p=action_probs)
            rng, _rng = jax.random.split(rng)
            next_obs, next_state, reward, done, info = self.env.step(
                _rng, state, action, env_params
            )
            new_cum_reward = cum_reward + reward * valid_mask
            new_valid_mask = valid_mask * (1 - done)
            carry = [
                rng,
                next_obs,
                next_state,
                train_state,
                new_cum_reward,
                new_valid_mask,
            ]
            transition = Transition(obs, action, reward, next_obs, done)
            if self.return_info:
                return carry, (transition, info)
            return carry, transition

        # Scan over episode step loop
        carry_out, rollout = jax.lax.scan(
            policy_step,
            [
                rng,
                init_obs,
                init_state,
                train_state,
                jnp.float32(0.0),
                jnp.float32(1.0),
            ],
            (),
            self.eval_rollout_len if eval else self.train_rollout_len,
        )
        if self.return_info:
            rollout, info = rollout
        end_obs, end_state, cum_return = carry_out[1], carry_out[2], carry_out[4]
        if self.return_info:
            return rollout, end_obs, end_state, cum_return, info
        return rollout, end_obs, end_state, cum_return

    def optimal_return(self, env_params, max_rollout_len, return_all):
        """Return the optimal expected return for the given set of environment parameters."""
        return jax.vmap(self.env.optimal_return, in_axes=(0, None, None))(
            env_params, max_rollout_len, return_all
        )

    @property
    def input_shape(self):
        """Get the shape of the observation."""
        rng = jax.random.PRNGKey(0)
        obs, state = self.env.reset(rng, self.env_params)
        return obs.shape


class Actor(nn.Module):
    # stand-in for groove's Actor: action probabilities
    n_actions: int

    @nn.compact
    def __call__(self, x):
        return jax.nn.softmax(nn.Dense(self.n_actions)(x))


def create_optimizer(optimizer, learning_rate, max_grad_norm):
    return optax.chain(optax.clip_by_global_norm(max_grad_norm), optax.adam(learning_rate))


def _create_train_state(rng, model, obs_shape, optimizer, learning_rate, max_grad_norm):
    params = model.init(rng, jnp.ones(obs_shape))["params"]
    tx = create_optimizer(optimizer, learning_rate, max_grad_norm)
    return TrainState.create(apply_fn=model.apply, params=params, tx=tx)


def eval_agent(rng, rollout_manager, env_params, actor_train_state, num_workers):
    """Evaluate episodic agent performance over multiple workers."""
    rng, _rng = jax.random.split(rng)
    env_obs, env_state = rollout_manager.batch_reset(_rng, env_params, num_workers)
    rng, _rng = jax.random.split(rng)
    _, _, _, tot_reward = rollout_manager.batch_rollout(
        _rng, actor_train_state, env_params, env_obs, env_state, eval=True
    )
    return tot_reward.mean()


if __name__ == "__main__":
    rollout_manager = RolloutWrapper(
        "Catch-bsuite", train_rollout_len=10, eval_rollout_len=20, return_info=False
    )
    rng = jax.random.PRNGKey(0)
    rng, _rng = jax.random.split(rng)
    actor_state = _create_train_state(_rng, Actor(3), (16,), "adam", 1e-3, 0.5)

    @jax.jit
    def evaluate(rng, actor_state):
        return eval_agent(rng, rollout_manager, None, actor_state, 4)

    rng, eval_rng = jax.random.split(rng)
    returns = [float(evaluate(k, actor_state)) for k in jax.random.split(eval_rng, 3)]
    print("mean returns:", returns)

    rng, _rng = jax.random.split(rng)
    env_obs, env_state = rollout_manager.batch_reset(_rng, None, 4)
    rollout, end_obs, end_state, cum_return = jax.jit(
        rollout_manager.batch_rollout, static_argnames="eval"
    )(rng, actor_state, None, env_obs, env_state, eval=False)
    assert rollout.obs.shape == (4, 10, 16)
    assert not bool(jnp.all(rollout.action[0] == rollout.action[1]))
