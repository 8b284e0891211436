# source: https://github.com/luchris429/purejaxrl/issues/35 ("This block of code (lines
#   81-86) used to initialise the environment overwrites the specified seed"); the code is
#   purejaxrl/dqn.py at https://github.com/luchris429/purejaxrl/blob/31756b197773a52db763fdbe6d635e4b46522a73/purejaxrl/dqn.py
#   (milabench's copy was fixed by naming the dummy key `_rng_dummy`,
#   https://github.com/mila-iqia/milabench/pull/394: "there was no reward variance between
#   seeds")
# observed on jax 0.10.2 CPU: `rng = jax.random.PRNGKey(0)` rebinds train's seed argument
#   to a constant dummy key, and the network initialisation and the runner's key are then
#   split from it: under jax.jit(jax.vmap(train)) every seed starts from the same network
#   parameters and carries the same key through the scan, whatever seed it was given.
#   The dummy key's own three uses (action sample, reset, step) only give buffer.init the
#   shapes of a timestep, and the fix keeps them: reusing it there is deliberate
#   (tolerated); the bug is the split that follows.
#   Kept verbatim: QNetwork, TimeStep, CustomTrainState, make_train (the wandb branch is
#   kept; it is not taken with WANDB_MODE "disabled") and main's jit(vmap(make_train(...)))
#   call. Changed: `jax.tree_map` (removed) is `jax.tree.map`; `import wandb` is left out.
#   Stand-ins (gymnax and flashbax are not installed): `gymnax.make` returns a small
#   two-action environment with gymnax's reset/step/action_space/observation_space
#   signatures, whose info holds "returned_episode_returns" as LogWrapper's does, and both
#   wrappers return the environment unchanged; `fbx.make_flat_buffer` returns a ring buffer
#   with flashbax's init/add/sample/can_sample signatures whose samples hold
#   `experience.first` and `experience.second`. The config is shrunk to 20 updates of two
#   environments, all in the exploration phase.
# gap: other
import collections
import dataclasses
import types

import jax
import jax.numpy as jnp

import chex
import flax
import optax
import flax.linen as nn
from flax.training.train_state import TrainState


# ---- stand-ins for gymnax and flashbax ----
class _Discrete:
    def __init__(self, n):
        self.n = n

    def sample(self, rng):
        return jax.random.randint(rng, (), 0, self.n)


class _Box:
    def __init__(self, shape):
        self.shape = shape


class _TinyEnv:
    def reset(self, key, params):
        state = jax.random.uniform(key, (4,), minval=-0.05, maxval=0.05)
        return state, state

    def step(self, key, state, action, params):
        state = state + 0.02 * (2.0 * action - 1.0) + 0.001 * jax.random.normal(key, (4,))
        done = jnp.abs(state[0]) > 2.4
        info = {"returned_episode_returns": jnp.float32(0.0)}
        return state, state, jnp.float32(1.0), done, info

    def action_space(self, params=None):
        return _Discrete(2)

    def observation_space(self, params):
        return _Box((4,))


gymnax = types.SimpleNamespace(make=lambda name: (_TinyEnv(), None))
FlattenObservationWrapper = LogWrapper = lambda env: env


_Pair = collections.namedtuple("_Pair", ["first", "second"])
_Sample = collections.namedtuple("_Sample", ["experience"])


@dataclasses.dataclass(frozen=True)
class _FlatBuffer:
    init: object
    add: object
    sample: object
    can_sample: object

    def replace(self, **kwargs):
        return dataclasses.replace(self, **kwargs)


def _make_flat_buffer(max_length, min_length, sample_batch_size, add_sequences, add_batch_size):
    def init(timestep):
        experience = jax.tree.map(lambda x: jnp.zeros((max_length,) + jnp.shape(x), jnp.asarray(x).dtype), timestep)
        return {"experience": experience, "index": jnp.int32(0), "size": jnp.int32(0)}

    def add(state, batch):
        idx = (state["index"] + jnp.arange(add_batch_size)) % max_length
        experience = jax.tree.map(lambda buf, x: buf.at[idx].set(x), state["experience"], batch)
        return {"experience": experience, "index": (state["index"] + add_batch_size) % max_length,
                "size": jnp.minimum(state["size"] + add_batch_size, max_length)}

    def sample(state, rng):
        idx = jax.random.randint(rng, (sample_batch_size,), 0, jnp.maximum(state["size"] - add_batch_size, 1))
        first = jax.tree.map(lambda buf: buf[idx], state["experience"])
        second = jax.tree.map(lambda buf: buf[idx + add_batch_size], state["experience"])
        return _Sample(experience=_Pair(first=first, second=second))

    def can_sample(state):
        return state["size"] >= min_length

    return _FlatBuffer(init, add, sample, can_sample)


fbx = types.SimpleNamespace(make_flat_buffer=_make_flat_buffer)
# ---- end of stand-ins ----


class QNetwork(nn.Module):
    action_dim: int

    @nn.compact
    def __call__(self, x: jnp.ndarray):
        x = nn.Dense(120)(x)
        x = nn.relu(x)
        x = nn.Dense(84)(x)
        x = nn.relu(x)
        x = nn.Dense(self.action_dim)(x)
        return x


@chex.dataclass(frozen=True)
class TimeStep:
    obs: chex.Array
    action: chex.Array
    reward: chex.Array
    done: chex.Array


class CustomTrainState(TrainState):
    target_network_params: flax.core.FrozenDict
    timesteps: int
    n_updates: int


def make_train(config):

    config["NUM_UPDATES"] = config["TOTAL_TIMESTEPS"] // config["NUM_ENVS"]

    basic_env, env_params = gymnax.make(config["ENV_NAME"])
    env = FlattenObservationWrapper(basic_env)
    env = LogWrapper(env)

    vmap_reset = lambda n_envs: lambda rng: jax.vmap(env.reset, in_axes=(0, None))(
        jax.random.split(rng, n_envs), env_params
    )
    vmap_step = lambda n_envs: lambda rng, env_state, action: jax.vmap(
        env.step, in_axes=(0, 0, 0, None)
    )(jax.random.split(rng, n_envs), env_state, action, env_params)

    def train(rng):

        # INIT ENV
        rng, _rng = jax.random.split(rng)
        init_obs, env_state = vmap_reset(config["NUM_ENVS"])(_rng)

        # INIT BUFFER
        buffer = fbx.make_flat_buffer(
            max_length=config["BUFFER_SIZE"],
            min_length=config["BUFFER_BATCH_SIZE"],
            sample_batch_size=config["BUFFER_BATCH_SIZE"],
            add_sequences=False,
            add_batch_size=config["NUM_ENVS"],
        )
        buffer = buffer.replace(
            init=jax.jit(buffer.init),
            add=jax.jit(buffer.add, donate_argnums=0),
            sample=jax.jit(buffer.sample),
            can_sample=jax.jit(buffer.can_sample),
        )
        rng = jax.random.PRNGKey(0)  # use a dummy rng here
        _action = basic_env.action_space().sample(rng)
        _, _env_state = env.reset(rng, env_params)  # tolerate: JIT502
        _obs, _, _reward, _done, _ = env.step(rng, _env_state, _action, env_params)  # tolerate: JIT502
        _timestep = TimeStep(obs=_obs, action=_action, reward=_reward, done=_done)
        buffer_state = buffer.init(_timestep)

        # INIT NETWORK AND OPTIMIZER
        network = QNetwork(action_dim=env.action_space(env_params).n)
        rng, _rng = jax.random.split(rng)  # expect: JIT502
        init_x = jnp.zeros(env.observation_space(env_params).shape)
        network_params = network.init(_rng, init_x)

        def linear_schedule(count):
            frac = 1.0 - (count / config["NUM_UPDATES"])
            return config["LR"] * frac

        lr = linear_schedule if config.get("LR_LINEAR_DECAY", False) else config["LR"]
        tx = optax.adam(learning_rate=lr)

        train_state = CustomTrainState.create(
            apply_fn=network.apply,
            params=network_params,
            target_network_params=jax.tree.map(lambda x: jnp.copy(x), network_params),
            tx=tx,
            timesteps=0,
            n_updates=0,
        )

        # epsilon-greedy exploration
        def eps_greedy_exploration(rng, q_vals, t):
            rng_a, rng_e = jax.random.split(
                rng, 2
            )  # a key for sampling random actions and one for picking
            eps = jnp.clip(  # get epsilon
                (
                    (config["EPSILON_FINISH"] - config["EPSILON_START"])
                    / config["EPSILON_ANNEAL_TIME"]
                )
                * t
                + config["EPSILON_START"],
                config["EPSILON_FINISH"],
            )
            greedy_actions = jnp.argmax(q_vals, axis=-1)  # get the greedy actions
            chosed_actions = jnp.where(
                jax.random.uniform(rng_e, greedy_actions.shape)
                < eps,  # pick the actions that should be random
                jax.random.randint(
                    rng_a, shape=greedy_actions.shape, minval=0, maxval=q_vals.shape[-1]
                ),  # sample random actions,
                greedy_actions,
            )
            return chosed_actions

        # TRAINING LOOP
        def _update_step(runner_state, unused):

            train_state, buffer_state, env_state, last_obs, rng = runner_state

            # STEP THE ENV
            rng, rng_a, rng_s = jax.random.split(rng, 3)
            q_vals = network.apply(train_state.params, last_obs)
            action = eps_greedy_exploration(
                rng_a, q_vals, train_state.timesteps
            )  # explore with epsilon greedy_exploration
            obs, env_state, reward, done, info = vmap_step(config["NUM_ENVS"])(
                rng_s, env_state, action
            )
            train_state = train_state.replace(
                timesteps=train_state.timesteps + config["NUM_ENVS"]
            )  # update timesteps count

            # BUFFER UPDATE
            timestep = TimeStep(obs=last_obs, action=action, reward=reward, done=done)
            buffer_state = buffer.add(buffer_state, timestep)

            # NETWORKS UPDATE
            def _learn_phase(train_state, rng):

                learn_batch = buffer.sample(buffer_state, rng).experience

                q_next_target = network.apply(
                    train_state.target_network_params, learn_batch.second.obs
                )  # (batch_size, num_actions)
                q_next_target = jnp.max(q_next_target, axis=-1)  # (batch_size,)
                target = (
                    learn_batch.first.reward
                    + (1 - learn_batch.first.done) * config["GAMMA"] * q_next_target
                )

                def _loss_fn(params):
                    q_vals = network.apply(
                        params, learn_batch.first.obs
                    )  # (batch_size, num_actions)
                    chosen_action_qvals = jnp.take_along_axis(
                        q_vals,
                        jnp.expand_dims(learn_batch.first.action, axis=-1),
                        axis=-1,
                    ).squeeze(axis=-1)
                    return jnp.mean((chosen_action_qvals - target) ** 2)

                loss, grads = jax.value_and_grad(_loss_fn)(train_state.params)
                train_state = train_state.apply_gradients(grads=grads)
                train_state = train_state.replace(n_updates=train_state.n_updates + 1)
                return train_state, loss

            rng, _rng = jax.random.split(rng)
            is_learn_time = (
                (buffer.can_sample(buffer_state))
                & (  # enough experience in buffer
                    train_state.timesteps > config["LEARNING_STARTS"]
                )
                & (  # pure exploration phase ended
                    train_state.timesteps % config["TRAINING_INTERVAL"] == 0
                )  # training interval
            )
            train_state, loss = jax.lax.cond(
                is_learn_time,
                lambda train_state, rng: _learn_phase(train_state, rng),
                lambda train_state, rng: (train_state, jnp.array(0.0)),  # do nothing
                train_state,
                _rng,
            )

            # update target network
            train_state = jax.lax.cond(
                train_state.timesteps % config["TARGET_UPDATE_INTERVAL"] == 0,
                lambda train_state: train_state.replace(
                    target_network_params=optax.incremental_update(
                        train_state.params,
                        train_state.target_network_params,
                        config["TAU"],
                    )
                ),
                lambda train_state: train_state,
                operand=train_state,
            )

            metrics = {
                "timesteps": train_state.timesteps,
                "updates": train_state.n_updates,
                "loss": loss.mean(),
                "returns": info["returned_episode_returns"].mean(),
            }

            # report on wandb if required
            if config.get("WANDB_MODE", "disabled") == "online":

                def callback(metrics):
                    if metrics["timesteps"] % 100 == 0:
                        wandb.log(metrics)

                jax.debug.callback(callback, metrics)

            runner_state = (train_state, buffer_state, env_state, obs, rng)

            return runner_state, metrics

        # train
        rng, _rng = jax.random.split(rng)
        runner_state = (train_state, buffer_state, env_state, init_obs, _rng)

        runner_state, metrics = jax.lax.scan(
            _update_step, runner_state, None, config["NUM_UPDATES"]
        )
        return {"runner_state": runner_state, "metrics": metrics}

    return train


if __name__ == "__main__":
    config = {
        "NUM_ENVS": 2,
        "BUFFER_SIZE": 64,
        "BUFFER_BATCH_SIZE": 8,
        "TOTAL_TIMESTEPS": 40,
        "EPSILON_START": 1.0,
        "EPSILON_FINISH": 0.05,
        "EPSILON_ANNEAL_TIME": 25e4,
        "TARGET_UPDATE_INTERVAL": 10,
        "LR": 2.5e-4,
        "LEARNING_STARTS": 1000,  # the 40 steps run stay in the exploration phase
        "TRAINING_INTERVAL": 2,
        "LR_LINEAR_DECAY": False,
        "GAMMA": 0.99,
        "TAU": 1.0,
        "ENV_NAME": "CartPole-v1",
        "SEED": 0,
        "NUM_SEEDS": 2,
        "WANDB_MODE": "disabled",  # set to online to activate wandb
    }
    rng = jax.random.PRNGKey(config["SEED"])
    rngs = jax.random.split(rng, config["NUM_SEEDS"])
    train_vjit = jax.jit(jax.vmap(make_train(config)))
    outs = jax.block_until_ready(train_vjit(rngs))
    train_state = outs["runner_state"][0]
    final_rng = outs["runner_state"][4]
    init_obs_differ = not jnp.array_equal(outs["runner_state"][3][0], outs["runner_state"][3][1])
    assert init_obs_differ  # the environments did start from the two seeds
    # observed: line 188 splits the dummy key, not the seed: both seeds start from the same
    #   network parameters and carry the same key through the scan
    assert jnp.array_equal(final_rng[0], final_rng[1])
    kernel = train_state.target_network_params["params"]["Dense_0"]["kernel"]
    assert jnp.array_equal(kernel[0], kernel[1])
