# source: https://github.com/StoneT2000/jax-bandits/blob/fcf4fd0a555799b406219397cc92202fdb36f0df/jaxbandits/algos/eps_greedy.py
#   (with jaxbandits/envs/bernoulli.py, jaxbandits/envs/base.py, jaxbandits/algos/base.py,
#   jaxbandits/experiment.py and the driver examples/parallel.py at the same commit)
# observed on jax 0.10.2 CPU: the bandit and the algorithm are flax struct dataclasses whose
#   methods are jitted with `self` as a traced pytree (the arm count and epsilon are
#   pytree_node=False fields, so they stay Python values under jit); experiment() scans
#   update_step for a static number of steps, splitting its key every step, and is vmapped over
#   a batch of envs, algorithm states and keys with the step count unbatched. A second batch
#   with fresh keys compiles nothing new and draws different rewards, the averaged regret falls
#   as the estimates improve, and epsilon=1.0 gives uniformly random arms. JAX's key-reuse checker finds no reuse.
# gap: other
# added/changed: the imports gathered into one file; `jax.random.KeyArray` (removed from JAX)
#   spelled `jax.Array`; the other algorithms and GaussianBandits left out; the driver reduced
#   to examples/parallel.py's vmapped calls with 64 envs and 600 steps, without the timing and
#   plotting, in the __main__ block; its `key, *keys = split(key, n + 1)` and
#   `jnp.stack(keys)` written as one `split(key, n)` (a batch of distinct keys either way; JAX's
#   key-reuse checker reports stacked typed keys as consumed).
from abc import ABC, abstractmethod
from functools import partial
from typing import Tuple, TypeVar

import jax
import jax.numpy as jnp
from flax import struct

EnvState = TypeVar("EnvState")
AlgoState = TypeVar("AlgoState")


# ---- jaxbandits/envs/base.py ----
class BanditEnv(ABC):
    arms: int
    state: EnvState

    @classmethod
    def create(cls) -> "BanditEnv":
        pass

    @abstractmethod
    def step(self, key, action):
        pass

    @abstractmethod
    def regret(self, action):
        pass


# ---- jaxbandits/envs/bernoulli.py ----
@struct.dataclass
class BernoulliBanditsState:
    arm_probs: jnp.ndarray = None
    optimal_action: int = None


@struct.dataclass
class BernoulliBandits(BanditEnv):

    arms: int = struct.field(pytree_node=False)
    state: BernoulliBanditsState

    @classmethod
    def create(cls, key: jax.Array, arms: int):
        arm_probs = jax.random.uniform(key, (arms,))
        return cls(
            arms=arms,
            state=BernoulliBanditsState(
                arm_probs=arm_probs, optimal_action=jnp.argmax(arm_probs)
            ),
        )

    @jax.jit
    def step(self, key: jax.Array, action: int):
        p = jax.random.uniform(key=key)
        return self, jnp.where(p < self.state.arm_probs[action], 1, 0)

    @jax.jit
    def regret(self, action: int) -> float:
        return (
            self.state.arm_probs[self.state.optimal_action]
            - self.state.arm_probs[action]
        )


# ---- jaxbandits/algos/base.py ----
class BanditAlgo(ABC):
    arms: int

    @abstractmethod
    def update_step(self, key, env: BanditEnv) -> Tuple[AlgoState, BanditEnv, int, int]:
        """
        returns updated algo state, updated env state, selected action, and reward
        """
        pass


# ---- jaxbandits/algos/eps_greedy.py ----
@struct.dataclass
class EpsilonGreedyState:
    step: int = 0
    # number of times we tried each action
    counts: jnp.ndarray = None
    values: jnp.ndarray = None


@struct.dataclass
class EpsilonGreedy(BanditAlgo):
    arms: int = struct.field(pytree_node=False)
    epsilon: int = struct.field(pytree_node=False)
    state: EpsilonGreedyState

    @classmethod
    def create(cls, arms, epsilon=0.01) -> "EpsilonGreedy":
        return cls(
            arms=arms,
            epsilon=epsilon,
            state=EpsilonGreedyState(
                step=0, counts=jnp.zeros((arms,)), values=jnp.zeros((arms,))
            ),
        )

    @jax.jit
    def sample(self, key) -> int:
        key, subkey = jax.random.split(key)
        a = jnp.where(
            jax.random.uniform(key) > self.epsilon,
            jnp.argmax(self.state.values),
            jax.random.randint(subkey, (), 0, self.arms),
        )
        return a

    @jax.jit
    def update_step(self, key, env: BanditEnv):
        key, sample_key, bandit_key = jax.random.split(key, 3)
        a = self.sample(sample_key)

        env, r = env.step(bandit_key, a)

        n = self.state.counts[a]
        new_state = self.state.replace(
            step=self.state.step + 1,
            counts=self.state.counts.at[a].add(1),
            values=self.state.values.at[a].set(
                (r + n * self.state.values[a]) / (n + 1)
            ),
        )
        return self.replace(state=new_state), env, a, r


# ---- jaxbandits/experiment.py ----
@partial(jax.jit, static_argnames=["steps"])
def experiment(
    key: jax.Array,
    env: BanditEnv,
    algo: BanditAlgo,
    steps=5000,
):
    def body_fn(data, _):
        algo, env, key = data
        algo: BanditAlgo
        env: BanditEnv
        key, step_key = jax.random.split(key)
        algo, env, action, reward = algo.update_step(step_key, env)
        regret = env.regret(action)

        return (algo, env, key), dict(action=action, reward=reward, regret=regret)

    key, loop_key = jax.random.split(key, 2)
    _, agg = jax.lax.scan(body_fn, init=(algo, env, loop_key), xs=jnp.arange(0, steps))
    return agg


if __name__ == "__main__":
    # examples/parallel.py
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)

    key = jax.random.PRNGKey(0)
    num_envs = 64
    arms = 16
    N = 600

    Algo = EpsilonGreedy
    Env = BernoulliBandits

    key, env_key = jax.random.split(key)
    env_batch = jax.vmap(Env.create, in_axes=[0, None])(jax.random.split(env_key, num_envs), arms)
    algo_batch = jax.vmap(Algo.create, in_axes=[None], axis_size=num_envs)(arms)
    experiment_vmapped = jax.vmap(experiment, in_axes=[0, 0, 0, None], axis_size=num_envs)

    key, exp_key = jax.random.split(key)
    res = experiment_vmapped(jax.random.split(exp_key, num_envs), env_batch, algo_batch, N)
    n_compiles = len(compiles)
    key, exp_key = jax.random.split(key)
    res2 = experiment_vmapped(jax.random.split(exp_key, num_envs), env_batch, algo_batch, N)

    assert res["regret"].shape == (num_envs, N)
    # the second batch, with fresh keys, reuses the compiled experiment
    assert len(compiles) == n_compiles, (n_compiles, len(compiles))
    # fresh keys, different draws
    assert not jnp.array_equal(res["reward"], res2["reward"])
    # the estimates improve: less regret late than early
    regret = res["regret"].mean(0)
    assert regret[-200:].mean() <= regret[:200].mean(), (regret[:200].mean(), regret[-200:].mean())
    # epsilon stays a Python float under jit: with epsilon=1 every action is random
    all_random = jax.vmap(partial(Algo.create, epsilon=1.0), in_axes=[None], axis_size=num_envs)(arms)
    key, exp_key = jax.random.split(key)
    res3 = experiment_vmapped(jax.random.split(exp_key, num_envs), env_batch, all_random, N)
    counts = jnp.bincount(res3["action"].ravel(), length=arms)
    assert counts.min() > 0.8 * num_envs * N / arms, counts
    print("regret early/late:", float(regret[:200].mean()), float(regret[-200:].mean()))
