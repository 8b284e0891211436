# source: https://github.com/FranzKnut/jax_rl_util/blob/ab1f6d059a945e6b1e6cdae8cc3d9148cc4a3612/jax_rl_util/baselines/ppo_agent.py
# observed on jax 0.10.2 CPU: PPO_Agent.__call__ wraps self.model.apply in a fresh jax.jit on every environment step, so the actor-critic is traced and compiled again at every step (3 steps, 3 compilations of `apply`)
# gap: per-call-recompile
# added: imports trimmed to what runs; ActorCriticRNN and MLP are a stand-in condensed from the same repository's
#   jax_rl_util/baselines/ppo_rnn.py (MODEL="MLP", discrete actions; initialize_carry calls MLP's staticmethod on the class), with a small Categorical pytree standing in for
#   tfp.distributions.Categorical (tfp/distrax are not installed); field order follows the agent's call
#   ActorCriticRNN(action_dim, self.config, discrete); PPOParams is a stand-in dataclass; the gymnasium/orbax
#   checkpoint loading of the original __main__ is replaced by a freshly initialised model and random observations.
import functools
from dataclasses import dataclass

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import jax.random as jrandom


@dataclass(frozen=True)
class PPOParams:
    MODEL: str = "MLP"
    NUM_UNITS: int = 16


@flax.struct.dataclass
class Categorical:
    logits: jnp.ndarray

    def sample(self, seed):
        return jax.random.categorical(seed, self.logits)


class MLP(nn.Module):
    """GRU module."""

    config: PPOParams

    @functools.partial(
        nn.scan,
        variable_broadcast="params",
        in_axes=0,
        out_axes=0,
        split_rngs={"params": False},
    )
    @nn.compact
    def __call__(self, carry, x):
        """Apply the module."""
        ins, resets = x
        y = nn.Dense(self.config.NUM_UNITS)(ins)
        y = nn.relu(y)
        y = nn.Dense(self.config.NUM_UNITS)(y)
        return carry, y

    @staticmethod
    def initialize_carry(batch_size, hidden_size):
        """Use a dummy key since the default state init fn is just zeros."""
        return None


class ActorCriticRNN(nn.Module):
    """Actor Critic RNN."""

    action_dim: int
    config: PPOParams
    discrete: bool

    @nn.compact
    def __call__(self, hidden, x):
        """Compute embedding from RNN and then actor and critic MLPs."""
        obs, dones = x
        embedding = nn.Dense(self.config.NUM_UNITS, name="emb")(obs)
        embedding = nn.relu(embedding)

        rnn_in = (embedding, dones)
        hidden, embedding = globals()[self.config.MODEL](self.config)(hidden, rnn_in)

        actor_mean = nn.Dense(self.config.NUM_UNITS, name="actor0")(embedding)
        actor_mean = nn.relu(actor_mean)
        actor_mean = nn.Dense(self.action_dim, name="actor1")(actor_mean)
        pi = Categorical(logits=actor_mean)

        critic = nn.Dense(self.config.NUM_UNITS, name="critic0")(embedding)
        critic = nn.relu(critic)
        critic = nn.Dense(1, name="critic1")(critic)
        return hidden, pi, jnp.squeeze(critic, axis=-1)

    def initialize_carry(self, rng, input_shape):
        """Initialize the rnn hidden state."""
        return globals()[self.config.MODEL].initialize_carry(rng, input_shape)


class PPO_Agent():
    def __init__(self, action_dim, discrete, params, config, rng=None) -> None:
        self.rng = rng or jrandom.PRNGKey(0)
        super().__init__()
        # Restore the model config and parameters
        self.params = params
        self.config = config

        # Initialize the model
        self.model = ActorCriticRNN(action_dim, self.config, discrete)

        self.hidden = self.model.initialize_carry(1, self.config.NUM_UNITS)

    def __call__(self, obs, done):
        self.hidden, pi, value = jax.jit(self.model.apply)(  # expect: JIT301
            self.params, self.hidden, (obs[None, None], jnp.array(done)[None, None])
        )
        self.rng, _rng = jrandom.split(self.rng)
        return pi.sample(seed=_rng).squeeze(), value


if __name__ == "__main__":
    compiles = []

    def _listener(event, duration, **kw):
        if event == "/jax/core/compile/backend_compile_duration" and kw.get("fun_name") == "jit(apply)":
            compiles.append(kw["fun_name"])

    jax.monitoring.register_event_duration_secs_listener(_listener)

    config = PPOParams()
    obs_dim, action_dim = 4, 3
    model = ActorCriticRNN(action_dim, config, True)
    params = model.init(
        jrandom.PRNGKey(1), None, (jnp.zeros((1, 1, 1, obs_dim)), jnp.zeros((1, 1, 1), bool))
    )
    agent = PPO_Agent(action_dim, True, params, config)

    done = False
    key = jrandom.PRNGKey(2)
    steps = 3
    for _ in range(steps):
        key, sub = jrandom.split(key)
        obs = jrandom.normal(sub, (obs_dim,))
        action, value = agent(obs[None], done)
    print("compilations of apply over", steps, "steps:", len(compiles))
    assert len(compiles) == steps, compiles

# observed: line 106 jax.jit(self.model.apply) is built anew on each agent step: 3 steps compile `apply` 3 times
