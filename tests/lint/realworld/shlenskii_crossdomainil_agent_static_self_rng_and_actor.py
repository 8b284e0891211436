# source: https://github.com/daniil-shlenskii/cross-domain-imitation-learning/blob/f3965ba98c6c49aa97f12d140598dd4eb720b98b/experts/base_agent.py
#   (the base Agent of a user's SAC expert: sample_actions/eval_actions call methods jitted with
#   static_argnames="self" that read self._rng and self.actor; the later commit 74d3820,
#   "problem was in jitting method of Agent class", moves them to free functions of
#   (actor, observations, rng))
# observed on jax 0.10.2 CPU: _sample_actions_jit is traced once, so self._rng and self.actor of
#   that first call are baked in: sample_actions returns the same "new" rng and the same action
#   on every call although it stores the returned rng back into self._rng, and after the actor
#   is updated, sample_actions and eval_actions still act with the initial actor parameters
#   (the unjitted methods give new samples and the updated policy).
#   Added: a stand-in for SACAgent (experts/sac_agent.py at the same commit) reduced to its
#   actor: its __init__ lines for the rng and the actor, and an update() that takes one actor
#   gradient step with a stand-in loss; a stand-in for NormalTanhPolicy (networks/policy.py)
#   whose tanh-normal distribution replaces tensorflow_probability (not installed); flax's
#   TrainState as copied into nn/train_state.py (docstring and the fp8 OVERWRITE_WITH_GRADIENT
#   branches left out), utils/types.py's aliases, and the __main__ block; base_agent.py's
#   imports merged into the ones at the top. eval_log_probs, which
#   calls a misspelt _eval_log_prob_jit, is kept but not called; _eval_log_probs_jit reads
#   self.actor in the same way but cannot run (dist.log_probs is no distribution method), so it
#   is left unlabelled.
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
        self._rng, actions = self._sample_actions_jit(observations)
        return np.asarray(actions)

    @functools.partial(jax.jit, static_argnames="self")
    def _sample_actions_jit(self, observations: np.ndarray) -> Tuple[PRNGKey, jnp.ndarray]:
        _rng, key = jax.random.split(self._rng)  # expect: JIT201  # tolerate: JIT502
        dist = self.actor(observations)  # expect: JIT201
        return _rng, dist.sample(seed=key)

    def eval_actions(self, observations: np.ndarray) -> np.ndarray:
        actions = self._eval_actions_jit(jnp.asarray(observations))
        return np.asarray(actions)
    
    @functools.partial(jax.jit, static_argnames="self")
    def _eval_actions_jit(self, observations: np.ndarray) -> np.ndarray:
        dist = self.actor(observations)  # expect: JIT201
        return dist.mean()

    def eval_log_probs(self, observations: np.ndarray, actions: np.ndarray) -> float:
        return self._eval_log_prob_jit(observations, actions)
    
    @functools.partial(jax.jit, static_argnames="self")
    def _eval_log_probs_jit(self, observations: np.ndarray, actions: np.ndarray) -> float:
        dist = self.actor(observations)
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
    agent = SACAgent(seed=0, observation_dim=3, action_dim=2)
    obs = np.ones((1, 3), dtype=np.float32)
    fresh_sample = Agent._sample_actions_jit.__wrapped__  # the same methods, not jitted
    fresh_eval = Agent._eval_actions_jit.__wrapped__

    rng0, actor0 = agent._rng, agent.actor
    a0 = agent.sample_actions(obs)
    rngs = [agent._rng]
    a1 = agent.sample_actions(obs)
    rngs.append(agent._rng)
    a2 = agent.sample_actions(obs)
    # observed: line 121 reads self._rng at trace time: every call returns the same next rng
    # and draws the same action, while the unjitted method, fed the stored rng, moves on
    assert (a0 == a1).all() and (a1 == a2).all()
    assert bool((jax.random.key_data(rngs[0]) == jax.random.key_data(rngs[1])).all())
    _, u1 = fresh_sample(agent, obs)
    assert not (np.asarray(u1) == a0).all()

    m0 = agent.eval_actions(obs)
    for _ in range(5):
        agent.update({"observations": jnp.asarray(np.random.RandomState(0).randn(16, 3), jnp.float32)})
    assert agent.actor.step == 5
    a_after = agent.sample_actions(obs)
    agent._rng = rng0
    _, with_new_actor = fresh_sample(agent, obs)
    agent.actor = actor0
    _, with_old_actor = fresh_sample(agent, obs)
    # observed: line 122 reads self.actor at trace time: after five actor updates
    # sample_actions still samples from the initial actor (same action as with the old
    # parameters and the same key), not from the updated one
    assert (a_after == a0).all() and (np.asarray(with_old_actor) == a0).all()
    assert not (np.asarray(with_new_actor) == a0).all()

    trained = SACAgent(seed=0, observation_dim=3, action_dim=2)
    trained_m0 = trained.eval_actions(obs)
    for _ in range(5):
        trained.update({"observations": jnp.asarray(np.random.RandomState(0).randn(16, 3), jnp.float32)})
    trained_m1 = trained.eval_actions(obs)
    # observed: line 131 reads self.actor at trace time: eval_actions returns the initial
    # policy's mean after the updates, the unjitted method the updated policy's
    assert (trained_m1 == trained_m0).all()
    assert not (np.asarray(fresh_eval(trained, jnp.asarray(obs))) == trained_m0).all()
    print("stale self._rng and self.actor observed")
