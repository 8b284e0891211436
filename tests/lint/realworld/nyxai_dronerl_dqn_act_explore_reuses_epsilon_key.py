# source: https://github.com/nyx-ai/droneRL/blob/a271e3d7e355d5a7ae1a5192c9bcacc6bd6e1016/jax/agents/dqn.py
#   (the Flax/optax DQN agent of a JAX delivery-drones RL project; jax/train.py calls
#   dqn_agent.act(key, obs, ag_state) inside its jitted lax.scan training step)
# observed on jax 0.10.2 CPU: act() decides between exploring and exploiting with
#   `rand_val = jax.random.uniform(key)` and then, in the explore branch of the lax.cond, draws
#   the random action from that same key. Under jax.jit with jax_debug_key_reuse and a typed
#   key, the call raises KeyReuseError "In cond, argument 1 is already consumed" (reported at
#   the lax.cond line).
#   Changed: `from env import DroneEnvParams` / `from env.constants import Action` replaced by
#   the Action enum of jax/env/constants.py and a DroneEnvParams reduced to the fields the agent
#   reads (same defaults as jax/env/env.py). Added: the __main__ block, which builds the agent
#   as jax/train.py does, runs act and train_step under jax.jit, and runs act under the
#   key-reuse checker.
# gap: other
from typing import Tuple, Dict, Union
import jax
import jax.random
import jax.numpy as jnp
from flax.struct import dataclass, field
from flax.core import FrozenDict
from flax import linen as nn
import optax

from enum import IntEnum
from typing import Literal


# ---- stand-ins from jax/env/constants.py and jax/env/env.py at the same commit ----
class Action(IntEnum):
    LEFT = 0
    DOWN = 1
    RIGHT = 2
    UP = 3
    STAY = 4

    @classmethod
    def num_actions(cls) -> int:
        return len(cls)


@dataclass
class DroneEnvParams:
    grid_size: int = 8
    n_drones: int = 3
    wrapper: Literal['window', 'compass'] = 'window'
    window_radius: int = 3
# ---- end of stand-ins ----


@dataclass
class DQNAgentParams:
    batch_size: int = 1
    hidden_layers: Tuple[int, ...] = (32, 32)
    gamma: float = 0.95
    epsilon_start: float = 1.0
    epsilon_decay: float = 0.999
    epsilon_end: float = 0.01
    learning_rate: float = 1e-3
    target_update_interval: int = 5       # interval for updating target network
    tau: float = 1.0                      # EMA decay rate / smoothing coef for target network


@dataclass
class DQNAgentState:
    qnetwork: nn.Module = field(pytree_node=False)
    target_qnetwork: nn.Module = field(pytree_node=False)
    qnetwork_params: Union[Dict, FrozenDict]
    target_qnetwork_params: Union[Dict, FrozenDict]
    optimizer: optax.GradientTransformation = field(pytree_node=False)
    opt_state: optax.OptState
    epsilon: jnp.ndarray


class DenseQNetwork(nn.Module):
    hidden_layers: Tuple[int, ...] = (32, 32)

    @nn.compact
    def __call__(self, x):
        for n_features in self.hidden_layers:
            x = nn.Dense(n_features)(x)
            x = nn.relu(x)
        x = nn.Dense(Action.num_actions())(x)
        return x


class DQNAgent():
    def reset(self, rng: jnp.ndarray, ag_params: DQNAgentParams, env_params: DroneEnvParams) -> DQNAgentState:
        if env_params.wrapper != 'window':
            raise NotImplementedError
        r = env_params.window_radius
        input_size = (r * 2 + 1) ** 2 * 6
        # create network
        qnetwork = DenseQNetwork(ag_params.hidden_layers)
        qnetwork_params = qnetwork.init({'params': rng}, jnp.zeros((1, input_size)))
        # create optimizer
        optimizer = optax.adam(ag_params.learning_rate)
        opt_state = optimizer.init(qnetwork_params)
        # create target network (static)
        rng, key = jax.random.split(rng)
        target_qnetwork = DenseQNetwork(ag_params.hidden_layers)
        target_qnetwork_params = qnetwork.init({'params': key}, jnp.zeros((1, input_size)))
        return DQNAgentState(
                qnetwork=qnetwork,
                qnetwork_params=qnetwork_params,
                target_qnetwork=target_qnetwork,
                target_qnetwork_params=target_qnetwork_params,
                optimizer=optimizer,
                opt_state=opt_state,
                epsilon=jnp.array(ag_params.epsilon_start)
                )

    def act(self, key: jnp.ndarray, obs: jnp.ndarray, ag_state: DQNAgentState, greedy: bool = False):

        def _explore():
            return jax.random.randint(key, shape=(), minval=0, maxval=Action.num_actions())  # expect: JIT502

        def _exploit():
            out = ag_state.qnetwork.apply(ag_state.qnetwork_params, obs)
            return jnp.argmax(out)

        if greedy:
            return _exploit()

        rand_val = jax.random.uniform(key)
        return jax.lax.cond(rand_val < ag_state.epsilon, _explore, _exploit)

    def train_step(
            self,
            ag_state: DQNAgentState,
            obs: jnp.ndarray,
            actions: jnp.ndarray,
            rewards: jnp.ndarray,
            next_obs: jnp.ndarray,
            dones: jnp.ndarray,
            ag_params: DQNAgentParams):

        def compute_loss(network_params):
            # Q-values for current state (network)
            q_values = ag_state.qnetwork.apply(network_params, obs)
            q_value = jnp.take(q_values, actions)

            # Q-values for next state (target network)
            next_q_values = ag_state.target_qnetwork.apply(
                    ag_state.target_qnetwork_params,
                    next_obs)
            next_q_value = jnp.max(next_q_values)

            # Bellman equation
            td_target = rewards + ag_params.gamma * next_q_value * (1 - dones)

            # MSE loss
            loss = jnp.mean(jnp.square(q_value - td_target))
            return loss

        # compute gradient
        loss, grads = jax.value_and_grad(compute_loss)(ag_state.qnetwork_params)

        # compute optimizer & weight updates
        updates, new_opt_state = ag_state.optimizer.update(
                grads,
                ag_state.opt_state,
                ag_state.qnetwork_params)
        new_qnetwork_params = optax.apply_updates(ag_state.qnetwork_params, updates)
        ag_state = ag_state.replace(qnetwork_params=new_qnetwork_params, opt_state=new_opt_state)
        return ag_state, loss

    def update_target(self, ag_state: DQNAgentState, ag_params: DQNAgentParams):
        target_params = optax.incremental_update(
            ag_state.qnetwork_params,
            ag_state.target_qnetwork_params,
            ag_params.tau)
        return ag_state.replace(target_qnetwork_params=target_params)

    def update_epsilon(self, ag_state: DQNAgentState, ag_params: DQNAgentParams):
        epsilon = jnp.maximum(ag_state.epsilon * ag_params.epsilon_decay, ag_params.epsilon_end)
        return ag_state.replace(epsilon=epsilon)


if __name__ == "__main__":
    import traceback

    env_params = DroneEnvParams(n_drones=3, grid_size=8)
    ag_params = DQNAgentParams(hidden_layers=(8, 8))
    dqn_agent = DQNAgent()
    rng = jax.random.PRNGKey(0)
    ag_state = dqn_agent.reset(rng, ag_params, env_params)
    r = env_params.window_radius
    obs = jnp.ones(((r * 2 + 1) ** 2 * 6,))

    act = jax.jit(dqn_agent.act)
    rng, key = jax.random.split(rng)  # tolerate: JIT502
    action = act(key, obs, ag_state)
    assert 0 <= int(action) < Action.num_actions()
    batch = 4
    ag_state, loss = jax.jit(dqn_agent.train_step, static_argnums=6)(
        ag_state, jnp.ones((batch, obs.shape[0])), jnp.zeros((batch,), jnp.int32),
        jnp.ones((batch,)), jnp.ones((batch, obs.shape[0])), jnp.zeros((batch,)), ag_params)

    # observed: line 115 draws the exploration action from the key that
    # `rand_val = jax.random.uniform(key)` already consumed: with typed keys and the key-reuse
    # checker, the jitted act raises KeyReuseError at its lax.cond
    jax.config.update("jax_debug_key_reuse", True)
    try:
        jax.jit(dqn_agent.act)(jax.random.key(1), obs, ag_state)
    except jax.errors.KeyReuseError as e:
        assert "already consumed" in str(e)
        cause = e.__cause__ if e.__cause__ is not None else e
        frames = [f for f in traceback.extract_tb(cause.__traceback__) if f.filename == __file__]
        assert "jax.lax.cond(rand_val < ag_state.epsilon" in frames[-1].line, frames[-1]
    else:
        raise AssertionError("no KeyReuseError")
    finally:
        jax.config.update("jax_debug_key_reuse", False)
    print("ok")
