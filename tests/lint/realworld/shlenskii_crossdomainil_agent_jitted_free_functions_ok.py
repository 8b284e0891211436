# source: https://github.com/daniil-shlenskii/cross-domain-imitation-learning/blob/74d3820ca2a24aa40cd19f58295e7da05251babb/experts/base_agent.py
#   (the fix, commit "problem was in jitting method of Agent class": the Agent's jitted
#   methods with a static self become module-level jitted functions that take the actor
#   TrainState and the rng as arguments; sample_actions stores the returned rng)
# observed on jax 0.10.2 CPU: runs clean: sample_actions draws a new action and returns a new rng
#   on every call, and after actor updates sample_actions and eval_actions use the updated
#   actor parameters, with one compilation each.
#   Added: the same stand-ins as for the parent commit f3965ba (SACAgent reduced to its actor,
#   NormalTanhPolicy with a tanh-normal distribution instead of tensorflow_probability, flax's
#   TrainState as copied into nn/train_state.py without docstring and fp8 branches,
#   utils/types.py's aliases), base_agent.py's imports merged into the ones at the top, and
#   the __main__ block. eval_log_probs (dist.log_probs is no distribution method) is not called.
# gap: stale-state-attributes
from typing import Any, Sequence, Tuple
from collections.abc import Callable

import functools

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import core, struct

# utils/types.py
DataType = "DataType"
Params = flax.core.FrozenDict[str, Any]
PRNGKey = Any


# nn/train_state.py (flax's TrainState with a loss_fn field, update() and __call__)
class TrainState(struct.PyTreeNode):
    step: int | jax.Array
    apply_fn: Callable = struct.field(pytree_node=False)
    params: core.FrozenDict[str, Any] = struct.field(pytree_node=True)
    tx: optax.GradientTransformation = struct.field(pytree_node=False)
    opt_state: optax.OptState = struct.field(pytree_node=True)
    loss_fn: Callable = struct.field(pytree_node=False)

    def apply_gradients(self, *, grads, **kwargs):
        updates, new_opt_state = self.tx.update(grads, self.opt_state, self.params)
        new_params = optax.apply_updates(self.params, updates)
        return self.replace(
            step=self.step + 1,
            params=new_params,
            opt_state=new_opt_state,
            **kwargs,
        )

    @classmethod
    def create(cls, *, apply_fn, params, tx, loss_fn, **kwargs):
        opt_state = tx.init(params)
        return cls(
            step=0,
            apply_fn=apply_fn,
            params=params,
            tx=tx,
            opt_state=opt_state,
            loss_fn=loss_fn,
            **kwargs,
        )

    def update(self, **loss_kwargs):
        grads, info = jax.grad(self.loss_fn, has_aux=True)(
            self.params, state=self, **loss_kwargs
        )
        return self.apply_gradients(grads=grads), info

    def __call__(self, *args, **kwargs):
        return self.apply_fn({"params": self.params}, *args, **kwargs)


class _TanhNormal:  # stand-in for tfd.TransformedDistribution(MultivariateNormalDiag, Tanh())
    def __init__(self, loc, scale_diag):
        self.loc, self.scale_diag = loc, scale_diag

    def sample(self, seed):
        return jnp.tanh(self.loc + self.scale_diag * jax.random.normal(seed, self.loc.shape))

    def mean(self):
        return jnp.tanh(self.loc)


class NormalTanhPolicy(nn.Module):  # stand-in for networks/policy.py's, MLP of Dense layers
    hidden_dims: Sequence[int]
    action_dim: int

    @nn.compact
    def __call__(self, observations, temperature: float = 1.0):
        features = observations
        for dim in self.hidden_dims:
            features = nn.relu(nn.Dense(dim)(features))
        means = nn.Dense(self.action_dim)(features)
        log_stds = jnp.clip(nn.Dense(self.action_dim)(features), -5.0, 2.0)
        return _TanhNormal(loc=means, scale_diag=jnp.exp(log_stds) / temperature)


# ---- experts/base_agent.py

class Agent:
    actor: TrainState
    critic: TrainState
    _rng: PRNGKey

    def sample_actions(self, observations: np.ndarray) -> np.ndarray:
        self._rng, actions = _sample_actions_jit(self.actor, observations, rng=self._rng)
        return np.asarray(actions)

    def eval_actions(self, observations: np.ndarray) -> np.ndarray:
        actions = _eval_actions_jit(self.actor, observations)
        return np.asarray(actions)

    def eval_log_probs(self, observations: np.ndarray, actions: np.ndarray) -> float:
        return _eval_log_probs_jit(self.actor, observations, actions)
    

@jax.jit
def _sample_actions_jit(actor: TrainState, observations: np.ndarray, rng: PRNGKey) -> Tuple[PRNGKey, jnp.ndarray]:
    _rng, key = jax.random.split(rng)
    dist = actor(observations)
    return _rng, dist.sample(seed=key)

@jax.jit
def _eval_actions_jit(actor: TrainState, observations: np.ndarray) -> np.ndarray:
    dist = actor(observations)
    return dist.mean()

@jax.jit
def _eval_log_probs_jit(actor: TrainState, observations: np.ndarray, actions: np.ndarray) -> float:
    dist = actor(observations)
    return dist.log_probs(actions).mean()


def _actor_loss_fn(params, state, observations, key):  # stand-in for SACAgent's actor loss
    dist = state.apply_fn({"params": params}, observations)
    actions = dist.sample(seed=key)
    return ((actions - 0.5) ** 2).mean(), {"actor_loss": 0.0}


class SACAgent(Agent):  # stand-in for experts/sac_agent.py, reduced to the actor
    def __init__(self, *, seed: int, observation_dim: int, action_dim: int, actor_lr: float = 3e-2):
        # reproducability keys
        rng = jax.random.key(seed)
        rng, actor_key = jax.random.split(rng, 2)
        self._rng = rng

        observation = jnp.zeros(observation_dim)
        actor_module = NormalTanhPolicy(hidden_dims=(32, 32), action_dim=action_dim)
        actor_params = actor_module.init(actor_key, observation)["params"]
        self.actor = TrainState.create(
            loss_fn=_actor_loss_fn,
            apply_fn=actor_module.apply,
            params=actor_params,
            tx=optax.adam(learning_rate=actor_lr)
        )

    def update(self, batch):
        self._rng, key = jax.random.split(self._rng)
        self.actor, info = self.actor.update(observations=batch["observations"], key=key)
        return info


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    agent = SACAgent(seed=0, observation_dim=3, action_dim=2)
    obs = np.ones((1, 3), dtype=np.float32)
    batch = {"observations": jnp.asarray(np.random.RandomState(0).randn(16, 3), jnp.float32)}

    a0 = agent.sample_actions(obs)
    m0 = agent.eval_actions(obs)
    rng1 = agent._rng
    a1 = agent.sample_actions(obs)
    assert not (a0 == a1).all()
    assert not bool((jax.random.key_data(rng1) == jax.random.key_data(agent._rng)).all())
    for _ in range(5):
        agent.update(batch)
    m1 = agent.eval_actions(obs)
    assert not (m1 == m0).all()
    expected = np.asarray(jnp.tanh(agent.actor(jnp.asarray(obs)).loc))
    np.testing.assert_allclose(m1, expected, rtol=1e-5, atol=1e-6)
    before = len(compiles)
    a2 = agent.sample_actions(obs)
    a3 = agent.sample_actions(obs)
    assert not (a2 == a3).all()
    assert len(compiles) == before  # no recompilation for new parameters or rngs
    print("fresh rng and updated actor used on every call")
