# source: https://github.com/chanb/jax_learning/blob/392d07cfb5d0ac2bb2f0d4ffe47fa5c206c3c727/jax_learning/agents/rl_agents.py
# observed on jax 0.10.2 CPU: compute_action_continuous feeds the one curr_key to the policy's random_action, to the exploration coin jrandom.bernoulli, to the sign jrandom.randint and to the magnitude jrandom.uniform; bernoulli(k, eps) is uniform(k) < eps, so every exploratory action has |a_0| < eps * action_scale instead of a uniform magnitude.
# gap: other
# observed: line 86 jrandom.bernoulli receives the same key bytes that random_action already consumed (recorded by wrapping jrandom in __main__)
# observed: line 87 jrandom.randint receives the same key again (recorded)
# observed: line 92 jrandom.uniform receives the same key again; over 3000 steps with eps=0.1 the first action dimension of every exploratory action is below 0.1
# Kept: EpsilonGreedyAgent.__init__ and compute_action_continuous as written (compute_action_discrete, checkpoint and load
# dropped). Added: imports, constants, a stand-in RLAgent base class and Gaussian policy, and the __main__ block.
from typing import Dict, Tuple

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jrandom
import numpy as np

EXPLORATION_STRATEGY = "exploration_strategy"
CONTINUOUS = "continuous"
DISCRETE = "discrete"


class GaussianPolicy(eqx.Module):
    act_dim: int = eqx.field(static=True)

    def random_action(self, obs, h_state, key):
        return jrandom.normal(key, (self.act_dim,)), h_state


class RLAgent:
    def __init__(self, model, model_key, buffer, learner, key):
        self.model = model
        self._model_key = model_key
        self._buffer = buffer
        self._learner = learner
        self._key = key
        self._obs_rms = False


class EpsilonGreedyAgent(RLAgent):
    def __init__(
        self,
        model: Dict[str, eqx.Module],
        model_key: str,
        buffer,
        learner,
        init_eps: float,
        min_eps: float,
        eps_decay: float,
        eps_warmup: float,
        action_space: str,
        action_dim: int,
        key: jrandom.PRNGKey,
        action_range: Tuple[float, float] = (-1.0, 1.0),
    ):
        assert action_space in (CONTINUOUS, DISCRETE)
        super().__init__(model, model_key, buffer, learner, key)
        self._eps = init_eps
        self._init_eps = init_eps
        self._min_eps = min_eps
        self._eps_decay = eps_decay
        self._eps_warmup = eps_warmup
        self._action_dim = action_dim
        self._action_range = action_range
        self._action_midpoint = (action_range[0] + action_range[1]) / 2
        self._action_scale = (action_range[1] - action_range[0]) / 2
        if action_space == CONTINUOUS:
            self.compute_action = self.compute_action_continuous
        else:
            raise NotImplementedError

    def compute_action_continuous(
        self,
        obs: np.ndarray,
        h_state: np.ndarray,
        info: dict,
        overwrite_rng_key: bool = True,
    ) -> Tuple[np.ndarray, np.ndarray]:
        obs = self._obs_rms.normalize(obs) if self._obs_rms else obs
        new_key, curr_key = jrandom.split(self._key)
        # action, next_h_state = self.model[self._model_key].deterministic_action(
        #     obs, h_state
        # )
        action, next_h_state = self.model[self._model_key].random_action(
            obs, h_state, curr_key
        )
        if jrandom.bernoulli(key=curr_key, p=self._eps):  # expect: JIT502
            sign = (-1) ** jrandom.randint(  # expect: JIT502
                curr_key, shape=(self._action_dim,), minval=0, maxval=2
            )
            action = (
                sign
                * jrandom.uniform(  # expect: JIT502
                    curr_key, shape=(self._action_dim,), minval=0, maxval=1
                )
                * self._action_scale
                + self._action_midpoint
            )
            info[EXPLORATION_STRATEGY] = 0
        else:
            info[EXPLORATION_STRATEGY] = 1

        if overwrite_rng_key:
            self._key = new_key
            if self._eps_warmup > 0:
                self._eps_warmup -= 1
            else:
                self._eps = max(self._eps * self._eps_decay, self._min_eps)

        return np.asarray(action), np.asarray(next_h_state)


if __name__ == "__main__":
    import types

    real = jrandom
    log = []

    def recording(name, fn):
        def wrapped(*args, **kwargs):
            key = kwargs["key"] if "key" in kwargs else args[0]
            log.append((name, tuple(np.asarray(key).tolist())))
            return fn(*args, **kwargs)
        return wrapped

    jrandom = types.SimpleNamespace(
        split=real.split,
        normal=recording("random_action", real.normal),
        bernoulli=recording("bernoulli", real.bernoulli),
        randint=recording("randint", real.randint),
        uniform=recording("uniform", real.uniform),
    )

    agent = EpsilonGreedyAgent(
        model={"policy": GaussianPolicy(act_dim=2)}, model_key="policy", buffer=None, learner=None,
        init_eps=0.1, min_eps=0.1, eps_decay=1.0, eps_warmup=0, action_space=CONTINUOUS,
        action_dim=2, key=real.PRNGKey(0),
    )
    obs, h = np.zeros(3, np.float32), np.zeros(1, np.float32)
    explored = []
    for step in range(3000):
        log.clear()
        info = {}
        act, _ = agent.compute_action(obs, h, info)
        if info[EXPLORATION_STRATEGY] == 0:
            names = [n for n, _ in log]
            keys = {k for _, k in log}
            assert names == ["random_action", "bernoulli", "randint", "uniform"], names
            assert len(keys) == 1, "all four draws got the same curr_key"
            explored.append(act)
    explored = np.stack(explored)
    print("lines 86/87/92: one key consumed by random_action, bernoulli, randint and uniform")
    print(len(explored), "exploratory actions; max |a_0| =", np.abs(explored[:, 0]).max(),
          "max |a_1| =", np.abs(explored[:, 1]).max())
    assert len(explored) > 100
    assert np.abs(explored[:, 0]).max() < 0.1   # magnitude tied to the exploration coin
    assert np.abs(explored[:, 1]).max() > 0.5
