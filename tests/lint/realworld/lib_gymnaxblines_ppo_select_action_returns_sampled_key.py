# source: https://github.com/RobertTLange/gymnax-blines/blob/3f029d6b98afb0d654d387b5bc0f7a592373ad66/utils/ppo.py
# observed on jax 0.10.2 CPU: RolloutManager.select_action_ppo samples the action with
#   pi.sample(seed=rng) and hands the same rng back as its new key; get_transition then
#   splits that key for the next step, so the key that drew the actions also makes every
#   later key. The key select_action_ppo returns equals the key it was given, and under
#   jax.debug_key_reuse(True) the first get_transition raises KeyReuseError "In
#   random_split, argument 0 is already consumed". Excerpt: BatchManager.reset/append,
#   RolloutManager.select_action_ppo/batch_step, policy, and train_ppo's optimizer,
#   managers, get_transition and transition loop, as written (batch_evaluate, the update
#   step, evaluation, logging and tqdm are left out, and train_ppo returns its rollout
#   manager, train state, last observation and batch). Added: a stand-in for gymnax.make (a tiny
#   point-mass env with reset/step, observation_space and action_space), a stand-in
#   flax actor-critic whose pi is a pytree Categorical with sample(seed=)/log_prob in place
#   of tfp's (tensorflow_probability, gymnax and evosax are not installed), a
#   SimpleNamespace config, and the __main__ driver.
# gap: other
from functools import partial
from types import SimpleNamespace
from typing import Any, Callable, Tuple

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax import struct
from flax.training.train_state import TrainState


@struct.dataclass
class Categorical:
    # stand-in for tfp.distributions.Categorical
    logits: jnp.ndarray

    def sample(self, seed):
        return jax.random.categorical(seed, self.logits)

    def log_prob(self, action):
        logp = jax.nn.log_softmax(self.logits)
        return jnp.take_along_axis(logp, action[..., None], axis=-1)[..., 0]


class CategoricalSeparateMLP(nn.Module):
    # stand-in for utils/models.py's network of the same name
    num_output_units: int = 3

    @nn.compact
    def __call__(self, x, rng):
        v = nn.Dense(1)(nn.relu(nn.Dense(16)(x)))
        logits = nn.Dense(self.num_output_units)(nn.relu(nn.Dense(16)(x)))
        return v, Categorical(logits=logits)


@struct.dataclass
class EnvState:
    pos: jnp.ndarray
    time: jnp.ndarray


class _PointEnv:
    # stand-in for a gymnax environment: move left, stay or right on a line
    def reset(self, key, params):
        pos = jax.random.uniform(key, (), minval=-1.0, maxval=1.0)
        return jnp.array([pos]), EnvState(pos=pos, time=jnp.array(0))

    def step(self, key, state, action, params):
        pos = state.pos + 0.1 * (action - 1)
        reward = -jnp.abs(pos)
        done = jnp.logical_or(jnp.abs(pos) > 2.0, state.time + 1 >= 20)
        obs_re, state_re = self.reset(key, params)
        new_state = EnvState(pos=pos, time=state.time + 1)
        new_state = jax.tree.map(lambda a, b: jnp.where(done, a, b), state_re, new_state)
        obs = jnp.where(done, obs_re, jnp.array([pos]))
        return obs, new_state, reward, done, {}

    def observation_space(self, params):
        return SimpleNamespace(shape=(1,))

    def action_space(self, params):
        return SimpleNamespace(shape=())


class BatchManager:
    def __init__(
        self,
        discount: float,
        gae_lambda: float,
        n_steps: int,
        num_envs: int,
        action_size,
        state_space,
    ):
        self.num_envs = num_envs
        self.action_size = action_size
        self.buffer_size = num_envs * n_steps
        self.num_envs = num_envs
        self.n_steps = n_steps
        self.discount = discount
        self.gae_lambda = gae_lambda

        try:
            temp = state_space.shape[0]
            self.state_shape = state_space.shape
        except Exception:
            self.state_shape = [state_space]
        self.reset()

    @partial(jax.jit, static_argnums=0)
    def reset(self):
        return {
            "states": jnp.empty(
                (self.n_steps, self.num_envs, *self.state_shape),
                dtype=jnp.float32,
            ),
            "actions": jnp.empty(
                (self.n_steps, self.num_envs, *self.action_size),
            ),
            "rewards": jnp.empty(
                (self.n_steps, self.num_envs), dtype=jnp.float32
            ),
            "dones": jnp.empty((self.n_steps, self.num_envs), dtype=jnp.uint8),
            "log_pis_old": jnp.empty(
                (self.n_steps, self.num_envs), dtype=jnp.float32
            ),
            "values_old": jnp.empty(
                (self.n_steps, self.num_envs), dtype=jnp.float32
            ),
            "_p": 0,
        }

    @partial(jax.jit, static_argnums=0)
    def append(self, buffer, state, action, reward, done, log_pi, value):
        return {
                "states":  buffer["states"].at[buffer["_p"]].set(state),
                "actions": buffer["actions"].at[buffer["_p"]].set(action),
                "rewards": buffer["rewards"].at[buffer["_p"]].set(reward.squeeze()),
                "dones": buffer["dones"].at[buffer["_p"]].set(done.squeeze()),
                "log_pis_old": buffer["log_pis_old"].at[buffer["_p"]].set(log_pi),
                "values_old": buffer["values_old"].at[buffer["_p"]].set(value),
                "_p": (buffer["_p"] + 1) % self.n_steps,
            }


class RolloutManager(object):
    def __init__(self, model, env_name, env_kwargs, env_params):
        # Setup functionalities for vectorized batch rollout
        self.env_name = env_name
        self.env, self.env_params = _PointEnv(), None  # stand-in for gymnax.make(...)
        self.observation_space = self.env.observation_space(self.env_params)
        self.action_size = self.env.action_space(self.env_params).shape
        self.apply_fn = model.apply
        self.select_action = self.select_action_ppo

    @partial(jax.jit, static_argnums=0)
    def select_action_ppo(
        self,
        train_state: TrainState,
        obs: jnp.ndarray,
        rng: jax.random.PRNGKey,
    ) -> Tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray, jax.random.PRNGKey]:
        value, pi = policy(train_state.apply_fn, train_state.params, obs, rng)
        action = pi.sample(seed=rng)
        log_prob = pi.log_prob(action)
        return action, log_prob, value[:, 0], rng

    @partial(jax.jit, static_argnums=0)
    def batch_reset(self, keys):
        return jax.vmap(self.env.reset, in_axes=(0, None))(
            keys, self.env_params
        )

    @partial(jax.jit, static_argnums=0)
    def batch_step(self, keys, state, action):
        return jax.vmap(self.env.step, in_axes=(0, 0, 0, None))(
            keys, state, action, self.env_params
        )


@partial(jax.jit, static_argnums=0)
def policy(
    apply_fn: Callable[..., Any],
    params: flax.core.frozen_dict.FrozenDict,
    obs: jnp.ndarray,
    rng,
):
    value, pi = apply_fn(params, obs, rng)
    return value, pi


def train_ppo(rng, config, model, params, mle_log):
    """Training loop for PPO based on https://github.com/bmazoure/ppo_jax."""
    num_total_epochs = int(config.num_train_steps // config.num_train_envs + 1)
    num_steps_warm_up = int(config.num_train_steps * config.lr_warmup)
    schedule_fn = optax.linear_schedule(
        init_value=-float(config.lr_begin),
        end_value=-float(config.lr_end),
        transition_steps=num_steps_warm_up,
    )

    tx = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.scale_by_adam(eps=1e-5),
        optax.scale_by_schedule(schedule_fn),
    )

    train_state = TrainState.create(
        apply_fn=model.apply,
        params=params,
        tx=tx,
    )
    # Setup the rollout manager -> Collects data in vmapped-fashion over envs
    rollout_manager = RolloutManager(
        model, config.env_name, config.env_kwargs, config.env_params
    )

    batch_manager = BatchManager(
        discount=config.gamma,
        gae_lambda=config.gae_lambda,
        n_steps=config.n_steps + 1,
        num_envs=config.num_train_envs,
        action_size=rollout_manager.action_size,
        state_space=rollout_manager.observation_space,
    )

    @partial(jax.jit, static_argnums=5)
    def get_transition(
        train_state: TrainState,
        obs: jnp.ndarray,
        state: dict,
        batch,
        rng: jax.random.PRNGKey,
        num_train_envs: int,
    ):
        action, log_pi, value, new_key = rollout_manager.select_action(
            train_state, obs, rng
        )
        # print(action.shape)
        new_key, key_step = jax.random.split(new_key)  # expect: JIT502
        b_rng = jax.random.split(key_step, num_train_envs)
        # Automatic env resetting in gymnax step!
        next_obs, next_state, reward, done, _ = rollout_manager.batch_step(
            b_rng, state, action
        )
        batch = batch_manager.append(
            batch, obs, action, reward, done, log_pi, value
        )
        return train_state, next_obs, next_state, batch, new_key

    batch = batch_manager.reset()

    rng, rng_step, rng_reset, rng_eval, rng_update = jax.random.split(rng, 5)
    obs, state = rollout_manager.batch_reset(
        jax.random.split(rng_reset, config.num_train_envs)
    )

    total_steps = 0
    for step in range(1, num_total_epochs + 1):
        train_state, obs, state, batch, rng_step = get_transition(
            train_state,
            obs,
            state,
            batch,
            rng_step,
            config.num_train_envs,
        )
        total_steps += config.num_train_envs
    return rollout_manager, train_state, obs, batch


if __name__ == "__main__":
    config = SimpleNamespace(
        num_train_steps=40, num_train_envs=4, lr_warmup=0.1, lr_begin=5e-4, lr_end=5e-4,
        max_grad_norm=0.5, env_name="Point-v0", env_kwargs={}, env_params={}, gamma=0.99,
        gae_lambda=0.95, n_steps=8,
    )
    model = CategoricalSeparateMLP()
    rng = jax.random.PRNGKey(0)
    params = model.init(rng, jnp.zeros((4, 1)), rng)
    rollout_manager, train_state, obs, batch = train_ppo(rng, config, model, params, None)

    # the key select_action_ppo sampled the actions with comes back unchanged
    key = jax.random.PRNGKey(7)
    action, _, _, new_key = rollout_manager.select_action(train_state, obs, key)
    assert jnp.array_equal(new_key, key)
    # observed: line 238 splits the key that pi.sample(seed=rng) in select_action_ppo
    # already consumed; JAX's key-reuse checker rejects the first transition
    try:
        with jax.debug_key_reuse(True):
            train_ppo(jax.random.key(1), config, model, params, None)  # tolerate: JIT502
    except jax.errors.KeyReuseError as e:
        assert "random_split, argument 0 is already consumed" in str(e), e
    else:
        raise AssertionError("expected KeyReuseError")
    print("KeyReuseError raised for the split of the sampled key")
