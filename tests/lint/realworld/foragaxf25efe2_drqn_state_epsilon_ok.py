# source: https://github.com/steventango/continual-foragax-agents/blob/f25efe280ce1cdee288279d47475e1a85e6d6b20/src/algorithms/nn/DRQN.py
# observed on jax 0.10.2 CPU: after commit f25efe28 "Fixed epsilon decay" the policy reads epsilon from the traced `state`, so the decayed epsilon reaches the compiled `_step` and the agent turns greedy
# gap: stale-state-attributes
# changes: DRQN.py reduced to its acting path: BaseAgent/NNAgent.__init__ folded into a short __init__ (same fields), `_decay_epsilon` and the RLGlue `start`/`step` copied from NNAgent.py, `egreedy_probabilities` from utils/policies.py, `cxu.dataclass` spelled `chex.dataclass`; the haiku NetworkBuilder is replaced by a small deterministic recurrent stand-in; the replay buffer, `_maybe_update`/`_update`/`_loss`/`_end` and the Collector are dropped; `__main__` block added
from dataclasses import replace
from functools import partial
from typing import Any, Dict, Optional, Tuple

import chex
import jax
import jax.numpy as jnp


def egreedy_probabilities(qs: jnp.ndarray, actions: int, epsilon: jax.Array):
    # compute the greedy policy
    pi = qs == jnp.max(qs)

    # compute a uniform random policy
    uniform = jnp.ones(actions) / actions

    # epsilon greedy is a mixture of greedy + uniform random
    return (1.0 - epsilon) * pi + epsilon * uniform


@chex.dataclass
class Hypers:
    gamma: float
    epsilon: jax.Array
    total_steps: int
    epsilon_linear_decay: Optional[float]
    initial_epsilon: Optional[float]
    final_epsilon: Optional[float]


@chex.dataclass
class AgentState:
    hypers: Hypers
    params: Any
    key: jax.Array
    last_timestep: Dict[str, jax.Array]
    steps: int
    carry: Any


class _StandInRecurrentNetwork:
    """stand-in for representations.networks.NetworkBuilder (a haiku recurrent torso + `q` head)"""

    def __init__(self, observations, hidden, actions):
        self.params = {
            "W": jnp.linspace(-1.0, 1.0, observations[0] * hidden).reshape(observations[0], hidden),
            "U": 0.1 * jnp.eye(hidden),
            "Q": jnp.linspace(-1.0, 1.0, hidden * actions).reshape(hidden, actions),
        }

    def phi(self, params, x, carry=None):
        pre = x @ params["W"]
        if carry is not None:
            pre = pre + carry @ params["U"]
        h = jnp.tanh(pre)
        return h[:, None, :], h[:, None, :], None

    def q(self, params, features):
        return features @ params["Q"]


class DRQN:
    def __init__(self, observations: Tuple, actions: int, params: Dict, seed: int):
        # BaseAgent.__init__ / NNAgent.__init__ / DRQN.__init__, reduced to the fields used below
        self.observations = observations
        self.actions = actions
        self.key = jax.random.key(seed)
        self.gamma = params.get("gamma", 1)
        self.reward_clip = params.get("reward_clip", 0)
        self.hidden_size = params["representation"]["hidden"]
        net = _StandInRecurrentNetwork(observations, self.hidden_size, actions)
        self.phi, self.q = net.phi, net.q

        epsilon_linear_decay = params.get("epsilon_linear_decay")
        initial_epsilon = params.get("initial_epsilon")
        final_epsilon = params.get("final_epsilon")
        if epsilon_linear_decay is not None:
            epsilon = initial_epsilon
        else:
            epsilon = params["epsilon"]

        dummy_timestep = {
            "x": jnp.zeros(self.observations),
            "carry": jnp.zeros(self.hidden_size),
            "reset": jnp.bool(True),
            "a": jnp.int32(0),
            "r": jnp.float32(0),
            "gamma": jnp.float32(0),
        }
        hypers = Hypers(
            gamma=self.gamma,
            epsilon=epsilon,
            total_steps=params["total_steps"],
            epsilon_linear_decay=epsilon_linear_decay,
            initial_epsilon=initial_epsilon,
            final_epsilon=final_epsilon,
        )
        self.state = AgentState(
            hypers=hypers,
            params=net.params,
            key=self.key,
            last_timestep=dummy_timestep,
            steps=0,
            carry=None,
        )

    # from NNAgent
    @partial(jax.jit, static_argnums=0)
    def _decay_epsilon(self, state: AgentState):
        epsilon = state.hypers.epsilon
        if state.hypers.epsilon_linear_decay is not None:
            assert state.hypers.initial_epsilon is not None
            assert state.hypers.final_epsilon is not None
            decay_steps = state.hypers.epsilon_linear_decay * state.hypers.total_steps
            progress = state.steps / decay_steps
            calculated_epsilon = (
                state.hypers.initial_epsilon
                + (state.hypers.final_epsilon - state.hypers.initial_epsilon) * progress
            )
            epsilon = jnp.maximum(calculated_epsilon, state.hypers.final_epsilon)

        hypers = replace(state.hypers, epsilon=epsilon)
        return replace(state, hypers=hypers)

    # internal compiled version of the value function
    @partial(jax.jit, static_argnums=0)
    def _values(self, state: AgentState, x: jax.Array, carry: jax.Array = None):  # type: ignore
        phi = self.phi(state.params, x, carry=carry)
        return self.q(state.params, phi[0][:, -1]), phi[1][:, -1], phi[2]
    
    @partial(jax.jit, static_argnums=0)
    def _policy(self, state: AgentState, obs: jax.Array) -> Tuple[jax.Array, jax.Array]:
        obs = jnp.expand_dims(obs, 0)
        q, carry, _ = self._values(state, obs, carry=state.carry)
        pi = egreedy_probabilities(q, self.actions, state.hypers.epsilon)[0]
        return pi, carry
    
    @partial(jax.jit, static_argnums=0)
    def act(
        self, state: AgentState, obs: jax.Array,
    ) -> tuple[AgentState, jax.Array]:
        pi, state.carry = self._policy(state, obs)
        state.key, sample_key = jax.random.split(state.key)
        a = jax.random.choice(sample_key, self.actions, p=pi)
        return state, a

    # ----------------------
    # -- RLGlue interface -- (from NNAgent)
    # ----------------------
    def start(self, obs: jax.Array):
        self.state, a = self._start(self.state, obs)
        return a

    def step(self, reward: jax.Array, obs: jax.Array, extra: Dict[str, jax.Array]):
        self.state, a = self._step(self.state, reward, obs, extra)
        return a

    @partial(jax.jit, static_argnums=0)
    def _start(self, state: AgentState, obs: jax.Array):
        state.carry = None
        state, a = self.act(state, obs)
        state.last_timestep.update(
            {
                "x": obs,
                "a": a,
                "carry": jnp.zeros(self.hidden_size),   # Replaced with learnt init within alg
                "reset": jnp.bool(True)
            }
        )
        state = replace(state, steps=state.steps + 1)
        state = self._decay_epsilon(state)
        return state, a

    @partial(jax.jit, static_argnums=0)
    def _step(self, state: AgentState, reward: jax.Array, obs: jax.Array, extra: Dict[str, jax.Array]):
        state, a = self.act(state, obs)

        # see if the problem specified a discount term
        gamma = extra.get("gamma", 1.0)

        # possibly process the reward
        if self.reward_clip > 0:
            reward = jnp.clip(reward, -self.reward_clip, self.reward_clip)

        state.last_timestep.update(
            {
                "r": reward,
                "gamma": jnp.float32(state.hypers.gamma * gamma),
            }
        )
        state.last_timestep.update(
            {
                "x": obs,
                "a": a,
                "carry": state.carry[0],
                "reset": jnp.bool(False)
            }
        )
        state = replace(state, steps=state.steps + 1)
        state = self._decay_epsilon(state)
        return state, a


def greedy_fraction(agent, obs, n):
    hits = 0
    for _ in range(n):
        q, _, _ = agent._values(agent.state, jnp.expand_dims(obs, 0), carry=agent.state.carry)
        greedy = int(jnp.argmax(q[0]))
        a = agent.step(jnp.float32(1.0), obs, {})
        hits += int(a) == greedy
    return hits / n


if __name__ == "__main__":
    params = {
        "representation": {"hidden": 4},
        "total_steps": 20,
        "epsilon_linear_decay": 0.5,
        "initial_epsilon": 1.0,
        "final_epsilon": 0.0,
        "gamma": 0.99,
    }
    agent = DRQN((3,), 2, params, seed=0)
    obs = jnp.array([0.5, -0.2, 0.1])
    agent.start(obs)
    for _ in range(20):
        agent.step(jnp.float32(1.0), obs, {})
    assert float(agent.state.hypers.epsilon) == 0.0  # the decay has finished
    frac = greedy_fraction(agent, obs, 200)
    print("greedy fraction after decay:", frac)
    assert frac == 1.0, frac
