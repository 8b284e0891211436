# source: https://github.com/keraJLi/rejax/blob/56ad4c3a3a5d7ae0b4e048354034337c61390444/purerl/algos/dqn/dqn.py
#   (DQN.train before commit bc825f4, "Fixed tracer in if statement bug", which tests
#   `if train_state is None and rng is None:` in DQN, DDPG, PPO and SAC)
# observed on jax 0.10.2 CPU: the README's `jax.vmap(jax.jit(train_fn), in_axes=(None, 0))`
#   over a batch of keys fails at `if not (train_state or rng):`, where `train_state` is
#   None and `not` asks for the truth value of the traced key: ValueError "The truth value
#   of an array with more than one element is ambiguous" for the raw uint32[2] keys of the
#   README (a typed `jax.random.key` raises TracerBoolConversionError there).
#   Kept verbatim: DQN.train. Current spelling: `jax.tree_map` is `jax.tree.map`;
#   `chex.PRNGKey` is `jax.Array`.
#   Stand-ins (purerl, gymnax, distrax and chex are not installed): the config keeps the
#   static fields train() reads; initialize_train_state builds a train state holding only the
#   step count and the key; train_iteration counts the environment steps of one
#   iteration; and the eval callback returns the step count.
# gap: other
import jax
import numpy as np
from flax import struct
from jax import numpy as jnp
from typing import Callable


class DQNConfig(struct.PyTreeNode):
    # stand-in: the static fields DQN.train reads
    total_timesteps: int = struct.field(pytree_node=False)
    eval_freq: int = struct.field(pytree_node=False)
    eval_callback: Callable = struct.field(pytree_node=False)
    num_envs: int = struct.field(pytree_node=False)
    skip_initial_evaluation: bool = struct.field(pytree_node=False, default=False)


class DQNTrainState(struct.PyTreeNode):
    # stand-in for the TrainState subclass: the fields train() reads
    global_step: int
    rng: jax.Array


class Algorithm:
    @classmethod
    def train(cls, config, rng):
        raise NotImplementedError


class DQN(Algorithm):
    @classmethod
    def train(cls, config, rng=None, train_state=None):
        if not (train_state or rng):  # expect: JIT101  # tolerate: JIT103
            raise ValueError("Either train_state or rng must be provided")

        ts = train_state or cls.initialize_train_state(config, rng)

        if not config.skip_initial_evaluation:
            initial_evaluation = config.eval_callback(config, ts, ts.rng)

        def eval_iteration(ts, unused):
            # Run a few trainig iterations
            ts = jax.lax.fori_loop(
                0,
                np.ceil(config.eval_freq / config.num_envs).astype(int),
                lambda _, ts: cls.train_iteration(config, ts),
                ts,
            )

            # Run evaluation
            return ts, config.eval_callback(config, ts, ts.rng)

        ts, evaluation = jax.lax.scan(
            eval_iteration,
            ts,
            None,
            np.ceil(config.total_timesteps / config.eval_freq).astype(int),
        )

        if not config.skip_initial_evaluation:
            evaluation = jax.tree.map(
                lambda i, ev: jnp.concatenate((jnp.expand_dims(i, 0), ev)),
                initial_evaluation,
                evaluation,
            )

        return ts, evaluation

    @classmethod
    def initialize_train_state(cls, config, rng):
        # stand-in
        return DQNTrainState(global_step=jnp.array(0), rng=rng)

    @classmethod
    def train_iteration(cls, config, ts):
        # stand-in
        return ts.replace(global_step=ts.global_step + config.num_envs)


def eval_callback(config, ts, rng):
    # stand-in
    return ts.global_step


if __name__ == "__main__":
    train_config = DQNConfig(total_timesteps=1000, eval_freq=250,
                             eval_callback=eval_callback, num_envs=10)
    keys = jax.random.split(jax.random.PRNGKey(0), 10)
    train_fn = DQN.train  # get_agent("dqn") returns DQN.train
    vmap_train = jax.vmap(jax.jit(train_fn), in_axes=(None, 0))
    train_state, evaluation = vmap_train(train_config, keys)
