# source: https://github.com/fredML/sony_RL/blob/81b97895c4d46b8375b39cc26cb5a47f4da43341/a2c/a2c_agent.py (A2CAgent; a2c/interaction_loop.py calls agent.actor_step once per learner step)
# observed on jax 0.10.2 CPU: see the observed comment; actor_step always samples with the same self._rng, so the exploration noise is identical at every step
# gap: stale-state-attributes
# added: haiku, rlax and acme are not installed here, so small stand-ins for hk (Module, Linear, nets.MLP, transform, without_apply_rng), rlax (gaussian_diagonal, lambda_returns) and acme.types replace the imports;
#   PolicyNetwork/ValueNetwork are copied from a2c/a2c_network.py and LearnerState/Transition from base_functions/data.py at the same commit (instead of the os.chdir imports); __main__ block added
import re
from collections import namedtuple
from types import SimpleNamespace
from math import prod

import chex
from typing import *
import numpy as np
import jax
import jax.numpy as jnp
import optax
import abc
import functools


class hk:  # stand-in for the parts of dm-haiku used here (haiku is not installed)
    _frame = None
    _stack = []
    Transformed = namedtuple("Transformed", ["init", "apply"])

    class Module:
        def __init__(self, name=None):
            base = name or re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()
            full = f"{hk._stack[-1]}/~/{base}" if hk._stack else base
            n = hk._frame["counts"].get(full, 0)
            hk._frame["counts"][full] = n + 1
            self.module_name = full if n == 0 else f"{full}_{n}"

        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__(**kwargs)
            call = cls.__dict__.get("__call__")
            if call is not None:
                def wrapped(self, *args, _call=call, **kw):
                    hk._stack.append(self.module_name)
                    try:
                        return _call(self, *args, **kw)
                    finally:
                        hk._stack.pop()
                cls.__call__ = wrapped

    @staticmethod
    def get_parameter(name, shape, init):
        f, mod = hk._frame, hk._stack[-1]
        if f["init"]:
            f["n"] += 1
            f["params"].setdefault(mod, {})[name] = init(jax.random.fold_in(f["rng"], f["n"]), shape)
        return f["params"][mod][name]

    class Linear(Module):
        def __init__(self, output_size, name=None):
            super().__init__(name=name)
            self.output_size = output_size

        def __call__(self, x):
            w = hk.get_parameter("w", (x.shape[-1], self.output_size),
                                 lambda k, s: jax.random.truncated_normal(k, -2., 2., s) / np.sqrt(s[0]))
            b = hk.get_parameter("b", (self.output_size,), lambda k, s: jnp.zeros(s))
            return x @ w + b

    class MLP(Module):
        def __init__(self, output_sizes, name=None):
            super().__init__(name=name)
            self.output_sizes = output_sizes

        def __call__(self, x):
            for i, size in enumerate(self.output_sizes):
                x = hk.Linear(size, name=f"linear_{i}")(x)
                if i < len(self.output_sizes) - 1:
                    x = jax.nn.relu(x)
            return x

    nets = SimpleNamespace(MLP=MLP)

    @staticmethod
    def transform(f):
        def run(params, rng, init, args, kwargs):
            hk._frame = dict(params=params, rng=rng, init=init, counts={}, n=0)
            try:
                out = f(*args, **kwargs)
                return hk._frame["params"] if init else out
            finally:
                hk._frame = None
        return hk.Transformed(lambda rng, *a, **k: run({}, rng, True, a, k),
                              lambda params, rng, *a, **k: run(params, rng, False, a, k))

    @staticmethod
    def without_apply_rng(t):
        return hk.Transformed(t.init, lambda params, *a, **k: t.apply(params, None, *a, **k))


class rlax:  # stand-in for the rlax functions used here (rlax is not installed); same maths as rlax
    @staticmethod
    def gaussian_diagonal():
        def sample(key, mu, sigma):
            return mu + sigma * jax.random.normal(key, mu.shape)

        def logprob(x, mu, sigma):
            return jnp.sum(-0.5 * jnp.square((x - mu) / sigma) - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi), axis=-1)

        def entropy(mu, sigma):
            return jnp.sum(0.5 * (1. + jnp.log(2 * jnp.pi)) + jnp.log(sigma), axis=-1)
        return SimpleNamespace(sample=sample, logprob=logprob, entropy=entropy)

    @staticmethod
    def lambda_returns(r_t, discount_t, v_t, lambda_=1., stop_target_gradients=False):
        lambda_ = jnp.ones_like(discount_t) * lambda_

        def _body(acc, xs):
            returns, discounts, values, lambda_ = xs
            acc = returns + discounts * ((1 - lambda_) * values + lambda_ * acc)
            return acc, acc
        _, returns = jax.lax.scan(_body, v_t[-1], (r_t, discount_t, v_t, lambda_), reverse=True)
        return jax.lax.stop_gradient(returns) if stop_target_gradients else returns


types = SimpleNamespace(NestedArray=Any)  # stand-in for acme.types


# from base_functions/data.py
@chex.dataclass
class LearnerState:
    params: chex.Array
    opt_state: optax.OptState

Transition = namedtuple("Transition", field_names=["obs_tm1", "action_tm1", "reward_t", "discount_t", "obs_t", "done"])


# from a2c/a2c_network.py
class ValueNetwork(hk.Module):
  def __init__(self, name: Optional[str] = None) -> None:
    super().__init__(name=name)

  def __call__(self, s: chex.Array) -> chex.Array:
    return hk.nets.MLP([32,32,32,1])(s)[...,0]

class PolicyNetwork(hk.Module):
  def __init__(self, action_shape, name: Optional[str] = None) -> None:
    super().__init__(name=name)
    self.action_shape = action_shape

  def __call__(self, s: chex.Array ) -> Tuple[chex.Array, chex.Array]:
    action_dims = prod(self.action_shape)
    h = hk.nets.MLP([32,32,32, 2 * action_dims])(s)
    h = jax.nn.tanh(h)
    mu, sigma = jnp.split(h, 2, axis=-1)
    sigma = jax.nn.softplus(sigma)
    return 0.1*mu, 0.1*sigma

LogsDict = Mapping[str, chex.Array]


# A very simple agent API, with just enough to interact with the environment
# and to update its potential parameters.
class Agent(abc.ABC):
    @abc.abstractmethod
    def learner_step(self, transition: Transition) -> Mapping[str, chex.ArrayNumpy]:
        """One step of learning on a trajectory.

        The mapping returned can contain various logs.
        """
        pass


class A2CAgent(Agent):
    def __init__(self, seed: int, learning_rate: float, gamma: float, entropy_loss_coef: float, env_shape: tuple, action_shape: tuple) -> None:
        self._rng = jax.random.PRNGKey(seed=seed)
        self._init_loss, apply_loss = hk.without_apply_rng(
            hk.transform(self._loss_function))
        self._grad = jax.grad(apply_loss, has_aux=True)
        _, self._apply_policy = hk.without_apply_rng(
            hk.transform(self._hk_apply_policy))
        _, self._apply_value = hk.without_apply_rng(
            hk.transform(self._hk_apply_value))

        self._entropy_loss_coef = entropy_loss_coef
        self._gamma = gamma
        self._action_shape = action_shape
        self._env_shape = env_shape

        self._optimizer = optax.adam(learning_rate=learning_rate)
        self.init_fn = jax.jit(self._init_fn)
        self.update_fn = jax.jit(self._update_fn)
        self.apply_policy = jax.jit(self._apply_policy)
        self.apply_value = jax.jit(self._apply_value)

        self._rng, init_rng = jax.random.split(self._rng)
        self._learner_state = self._init_fn(
            init_rng, self._generate_dummy_transition())

    def _init_fn(self, rng: chex.PRNGKey, transition: Transition) -> LearnerState:
        params = self._init_loss(rng, transition)
        opt_state = self._optimizer.init(params)
        return LearnerState(params=params, opt_state=opt_state)

    def _update_fn(self, learner_state: LearnerState, transition: Transition) -> Tuple[LearnerState, LogsDict]:
        grads, aux = self._grad(learner_state.params, transition)
        updates, new_opt_state = self._optimizer.update(
            grads, learner_state.opt_state)
        new_params = optax.apply_updates(learner_state.params, updates)
        return LearnerState(params=new_params, opt_state=new_opt_state), aux

    def learner_step(self, transition: Transition) -> Mapping[str, chex.ArrayNumpy]:
        self._learner_state, logs = self.update_fn(
            self._learner_state, transition)
        return logs
    
    def _actor_step(self, params, rng: chex.PRNGKey, observations: types.NestedArray, for_eval: bool = False) -> types.NestedArray:
        mu, sigma = self.apply_policy(params, observations)
        
        if for_eval:
            actions = rlax.gaussian_diagonal().sample(rng, mu, 0. * sigma) #no stochastic effect when eval mode
        else:
            actions = rlax.gaussian_diagonal().sample(rng, mu, sigma) #variable actions pi(s) for one given observation
        return actions

    def actor_step(self, observations, for_eval = False):
        actor_params = {k: self._learner_state.params[k] for k in self._learner_state.params.keys(
        ) if k.startswith("policy")}
        return self._actor_step(actor_params, self._rng, observations, for_eval)  # expect: JIT502

    def _generate_dummy_transition(self) -> Transition:

        observation = jnp.array(np.random.uniform(-1, 1, self._env_shape), dtype=jnp.float32)

        action = jnp.array(np.random.uniform(-1, 1, self._action_shape), dtype=jnp.float32)

        return Transition(
            obs_tm1=observation[None],
            action_tm1=action,
            reward_t=jnp.zeros(1),
            discount_t=jnp.zeros(1),
            obs_t=observation[None],
            done=jnp.zeros(1))


    def _hk_apply_value(self, observations: types.NestedArray):
        return ValueNetwork()(observations)

    def _hk_apply_policy(self, observations: types.NestedArray):
        return PolicyNetwork(self._action_shape)(observations)

    def _loss_function(self, transition: Transition) -> Tuple[chex.Array, LogsDict]:
        # inputs are assumed to be provided such that the full sequence that we get is
        # o_0 a_0 r_0 d_0, ...., o_T, a_T, r_T, d_T
        mu, sigma = PolicyNetwork(self._action_shape)(transition.obs_tm1)

        obs = jnp.concatenate((transition.obs_tm1, transition.obs_t[-1:]),axis=0)

        '''values_tm1 = ValueNetwork()(transition.obs_tm1)
        values = ValueNetwork()(transition.obs_t)
        values = jax.lax.stop_gradient(values)'''

        values = ValueNetwork()(obs)

        batched_return_fn = jax.vmap(
          functools.partial(rlax.lambda_returns, stop_target_gradients=True),
          in_axes=1,
          out_axes=1)
        value_targets = batched_return_fn(
          transition.reward_t[...,None],
          (self._gamma * transition.discount_t[...,None] * (1. - transition.done[...,None])),
          values[1:],
          )

        '''value_targets = transition.reward_t + \
            (self._gamma * transition.discount_t * (1. - transition.done))*values[1:]'''
        value_loss = jnp.mean(.5 * jnp.square(values[:-1] - value_targets))

        sg_advantages = jax.lax.stop_gradient(value_targets - values[:-1])
        action_log_probs = rlax.gaussian_diagonal().logprob(transition.action_tm1, mu, sigma)
        #action_probs = PolicyNetwork(self._num_actions)(transition.obs_tm1)
        #action_log_probs = jnp.log(batched_indexing(
        #    action_probs, jnp.int16(transition.action_tm1)))
        entropies = rlax.gaussian_diagonal().entropy(mu, sigma)
        entropy_loss = -jnp.mean(entropies)
        policy_loss = -jnp.mean(sg_advantages * action_log_probs)
        policy_loss = policy_loss + self._entropy_loss_coef * entropy_loss

        logs = dict(actions_mean=transition.action_tm1.mean(axis=0),
                    value_loss=value_loss,
                    policy_loss=policy_loss,
                    entropy_loss=entropy_loss,
                    value_mean=values.mean(),
                    value_target_mean=value_targets.mean(),
                    mean_reward=transition.reward_t.mean(),
                    mu = mu.mean(),
                    sigma = sigma.mean()
                    )
        return value_loss + policy_loss, logs


if __name__ == "__main__":
    agent = A2CAgent(seed=0, learning_rate=1e-3, gamma=0.99, entropy_loss_coef=0.01, env_shape=(1, 6), action_shape=(2,))
    batch = Transition(obs_tm1=jnp.ones((4, 1, 6)), action_tm1=jnp.zeros((4, 2)), reward_t=jnp.ones(4),
                       discount_t=jnp.ones(4), obs_t=jnp.ones((4, 1, 6)), done=jnp.zeros(4))
    agent.learner_step(batch)
    # two steps of the interaction loop, with different observations
    obs_a = jnp.asarray(np.random.RandomState(0).uniform(-1, 1, (3, 1, 6)), jnp.float32)
    obs_b = jnp.asarray(np.random.RandomState(1).uniform(-1, 1, (3, 1, 6)), jnp.float32)
    policy_params = {k: v for k, v in agent._learner_state.params.items() if k.startswith("policy")}
    noises = []
    for obs in (obs_a, obs_b):
        actions = agent.actor_step(obs)
        mu, sigma = agent.apply_policy(policy_params, obs)
        noises.append((actions - mu) / sigma)
    same = bool(jnp.allclose(noises[0], noises[1], atol=1e-4))
    print("exploration noise identical at both steps:", same)
    assert same
    # observed: line 224 actor_step samples with the never-advanced self._rng: the standardised Gaussian noise is identical at every step
