# source: https://github.com/cyrille-kone/soft-actor-critic-jax/blob/7e77015fe0b2555aa5ea430666a0da0f3a8e6cf7/sac_agent.py
# observed on jax 0.10.2 CPU: update_value/update_actor/update_q are jax.jit of bound methods that read self.actor_params, self.Q1_params, self.Q2_params and self.value_target_params; those are baked in at the first trace, so learner_step's later updates never reach them; the logger.debug calls (used to write to_plot.log for plot.py) run only during the first trace and log tracer reprs
# gap: stale-state-attributes
# (haiku is not installed: a small stand-in for hk.transform / hk.without_apply_rng / hk.nets.MLP (same parameter names) replaces it; networks.py, replay_buffer.py and the logger/mse_loss of utils.py are inlined;
#  the logger's to_plot.log file handler is replaced by an in-memory list; unused imports acme/new_types dropped; jax.tree_multimap -> jax.tree_util.tree_map; __main__ block added)
# observed: line 395 with only self.actor_params changed, the jitted update_value returns the same params as before while the eager _update_value returns different ones
# observed: line 400 with only self.Q1_params changed, the jitted update_value returns the same params as before while the eager _update_value returns different ones
# observed: line 401 with only self.Q2_params changed, the jitted update_value returns the same params as before while the eager _update_value returns different ones
# observed: line 411 the 'value_loss' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 412 the 'value_grad' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 421 with only self.Q1_params shifted, the jitted update_actor returns the old actor_loss (-0.879) while the eager _update_actor returns ~99
# observed: line 422 with only self.Q2_params shifted, the jitted update_actor returns the old actor_loss (-0.879) while the eager _update_actor returns ~99
# observed: line 432 the 'actor_loss' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 433 the 'actor_grad' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 447 with only self.value_target_params changed (as learner_step's soft update does), the jitted update_q returns the same params as before while the eager _update_q returns different ones
# observed: line 464 the 'q1_loss' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 465 the 'q2_loss' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 466 the 'q1_grad' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# observed: line 467 the 'q2_grad' debug record is emitted once, during the first trace, as 'JitTracer(float32[])'; three learner_step calls give one record
# coding=utf-8
from functools import partial
import jax
import jax.numpy as jnp
import chex
import optax  # for adam optimizer
from typing import Mapping, Sequence, NamedTuple
import logging
import re
import sys
from types import SimpleNamespace
from collections import namedtuple


# ---- stand-in for haiku (not installed): transform / without_apply_rng / nets.MLP with haiku's parameter names ----
_HK_STATE = []


def _get_param(module, name, shape):
    st = _HK_STATE[-1]
    if st["init"]:
        mod = st["params"].setdefault(module, {})
        if name not in mod:
            st["key"], sub = jax.random.split(st["key"])
            mod[name] = jax.random.normal(sub, shape) / jnp.sqrt(shape[0]) if name == "w" else jnp.zeros(shape)
    return st["params"][module][name]


class _MLP:
    def __init__(self, output_sizes, activation=jax.nn.relu):
        self.output_sizes = output_sizes
        self.activation = activation
        self.module_name = re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    def __call__(self, x):
        for i, n in enumerate(self.output_sizes):
            name = f"{self.module_name}/~/linear_{i}"
            x = x @ _get_param(name, "w", (x.shape[-1], n)) + _get_param(name, "b", (n,))
            if i < len(self.output_sizes) - 1:
                x = self.activation(x)
        return x


class _Transformed(NamedTuple):
    init: object
    apply: object


def _transform(f):
    def init(key, *args):
        _HK_STATE.append({"params": {}, "key": key, "init": True})
        try:
            f(*args)
            return _HK_STATE[-1]["params"]
        finally:
            _HK_STATE.pop()

    def apply(params, *args):
        _HK_STATE.append({"params": params, "init": False})
        try:
            return f(*args)
        finally:
            _HK_STATE.pop()

    return _Transformed(init, apply)


hk = SimpleNamespace(transform=_transform, without_apply_rng=lambda t: t, nets=SimpleNamespace(MLP=_MLP))


# ---- from utils.py (the DEBUG file handler to to_plot.log is replaced by an in-memory list) ----
logger = logging.getLogger(__name__)
logger.setLevel(logging.DEBUG)
logger.propagate = False
LOG_RECORDS = []


class _ListHandler(logging.Handler):
    def emit(self, record):
        LOG_RECORDS.append(record.getMessage())


logger.addHandler(_ListHandler(logging.DEBUG))


def mse_loss(x, y):
    return jnp.mean(jnp.square(x - y))


# ---- from networks.py ----
LOG_SIG_CAP_MAX = 2
LOG_SIG_CAP_MIN = -20


class CustomMLP(hk.nets.MLP):
    def __init__(self, output_sizes: Sequence[int],
                 non_linearity: str = 'relu',
                 chkpt_dir: str = None) -> None:

        if non_linearity == 'relu':
            activation = jax.nn.relu
        else:
            raise NotImplemented

        super().__init__(output_sizes=output_sizes, activation=activation)
        self._expected_input_dims = None  # should be set in child classes

    def __call__(self, x: chex.Array) -> chex.Array:
        assert x.shape[-1] == self._expected_input_dims,\
        f"input dimension {x.shape} doesn't match expected dimension [batch_size, {self._expected_input_dims}]"
        return super().__call__(x)


class CriticNetwork(CustomMLP):
    def __init__(self, obs_dims: int, action_dims: int,
                 hidden_output_dims=(256, 256),
                 non_linearity: str = 'relu',
                 chkpt_dir: str = None):
        super().__init__(
            output_sizes=(*hidden_output_dims, 1),
            non_linearity=non_linearity,
            chkpt_dir=chkpt_dir
        )

        self._expected_input_dims = obs_dims+action_dims  # to assert correct input dims


class ValueNetwork(CustomMLP):
    def __init__(self, obs_dims: int,
                 hidden_output_dims=(256, 256),
                 non_linearity: str = 'relu',
                 chkpt_dir: str = None):
        super().__init__(
            output_sizes=(*hidden_output_dims, 1),
            non_linearity=non_linearity,
            chkpt_dir=chkpt_dir
        )

        self._expected_input_dims = obs_dims  # to assert correct input dims


class ActorNetwork(CustomMLP):
    def __init__(self, obs_dims: int, action_dims: int,
                 hidden_output_dims=(256, 256),
                 non_linearity='relu',
                 chkpt_dir=None):

        super().__init__(
            output_sizes=(*hidden_output_dims, 2*action_dims),
            non_linearity=non_linearity,
            chkpt_dir=chkpt_dir
        )

        self._expected_input_dims = obs_dims  # to assert correct input dims

    def __call__(self, state: chex.Array) -> chex.Array:
        h = super().__call__(state)
        mu, log_sigma = jnp.split(h, 2, axis=-1)

        log_sigma = jnp.clip(log_sigma, LOG_SIG_CAP_MIN, LOG_SIG_CAP_MAX)  # to prefent -inf values
        return mu, log_sigma


# ---- from replay_buffer.py ----
Transition = namedtuple('Transition', 'state action reward next_state done')


class ReplayBuffer():
    """A simple replay buffer class to keep track of the agent's past experience"""

    def __init__(self, obs_shape, action_shape, max_length=1e6):
        self.obs_shape = obs_shape
        self.action_shape = action_shape
        self.max_length = max_length

        self._memory = []

    def __len__(self):
        return len(self._memory)

    def store_transition(self, state, action, reward, next_state, done) -> None:
        while len(self._memory) >= self.max_length:
            del self._memory[0]
        self._memory.append(Transition(state=state,
                                       action=action,
                                       reward=reward,
                                       next_state=next_state,
                                       done=done))

    def sample_batch(self, batch_size: int, rng) -> Transition:
        """Returns a Transition of batches"""
        indices = jax.random.randint(rng, (batch_size,), 0, len(self._memory)-1)

        states = []
        actions = []
        next_states = []
        rewards = []
        dones = []

        for i in indices:
            try:
                t = self._memory[i]
            except:
                print(i)
                exit()
            states.append(t.state)
            actions.append(t.action)
            next_states.append(t.next_state)
            rewards.append(t.reward)
            dones.append(t.done)

        return Transition(
            jnp.array(states),
            jnp.array(actions),
            jnp.array(rewards),
            jnp.array(next_states),
            jnp.array(dones)
        )


# ---- sac_agent.py ----


class SACAgent():
    def __init__(self,
                 rng,
                 obs_spec,
                 action_spec,
                 batch_size=256,
                 actor_lr=3e-4,
                 value_lr=3e-4,
                 q_lr=3e-4,
                 hidden_dims = (256, 256),
                 discount=0.99,
                 tau=0.005, # target smoothing coefficient,
                 target_period_update=1,
                 reward_scale=1.,
                 chkpt_dir=None,
                 jit=True):

        obs_dims    = obs_spec().shape[0]
        action_dims = action_spec().shape[0]

        self.memory = ReplayBuffer(obs_dims, action_dims)

        # initialize networks
        self.value = hk.without_apply_rng(hk.transform(lambda x:
                            ValueNetwork(obs_dims,
                                         hidden_output_dims=hidden_dims,
                                         chkpt_dir=chkpt_dir)(x)))

        # we use two distinct Q networks (see end of 4.2 in the paper)
        self.Q = hk.without_apply_rng(hk.transform(lambda x:
                            CriticNetwork(obs_dims,
                                          action_dims,
                                          hidden_output_dims=hidden_dims,
                                          chkpt_dir=chkpt_dir)(x)))
        self.actor = hk.without_apply_rng(hk.transform(lambda x:
                            ActorNetwork(obs_dims,
                                         action_dims,
                                         hidden_output_dims=hidden_dims,
                                         chkpt_dir=chkpt_dir)(x)))

        self.rng = rng

        self.obs_spec = obs_spec
        self.action_spec = action_spec
        self.batch_size = batch_size
        self.discount = discount
        self.tau = tau
        self.reward_scale = reward_scale

        # initialize networks parameters
        self.rng, value_key, Q1_key, Q2_key, actor_key = jax.random.split(self.rng, 5)

        dummy_obs = jnp.ones(obs_spec().shape)
        dummy_action = jnp.ones(action_spec().shape)
        self.value_params = self.value_target_params = self.value.init(value_key, dummy_obs)
        self.Q1_params = self.Q.init(Q1_key, jnp.concatenate((dummy_obs, dummy_action)))
        self.Q2_params = self.Q.init(Q2_key, jnp.concatenate((dummy_obs, dummy_action)))
        self.actor_params = self.actor.init(actor_key, dummy_obs)

        # create and initialize optimizers
        self.value_opt = optax.adam(value_lr)
        self.Q1_opt = optax.adam(q_lr)
        self.Q2_opt = optax.adam(q_lr)
        self.actor_opt = optax.adam(actor_lr)

        self.value_opt_state = self.value_opt.init(self.value_params)  # same optimizer for value and value_target
        self.Q1_opt_state = self.Q1_opt.init(self.Q1_params)
        self.Q2_opt_state = self.Q2_opt.init(self.Q2_params)
        self.actor_opt_state = self.actor_opt.init(self.actor_params)

        # disable jitting to log stuff from inside functions when debugging
        if jit:
            # jax.jit some functions
            self.update_value = jax.jit(self._update_value)
            self.update_actor = jax.jit(self._update_actor)
            self.update_q = jax.jit(self._update_q)
        else:
            self.update_value = self._update_value
            self.update_actor = self._update_actor
            self.update_q = self._update_q


    def select_actions(self, actor_params, observations: chex.Array, key, deterministic=False, logging=False) -> chex.Array:
        """
        For each observations, generates action distribution from actor
        and samples from this distribution
        also computes log_probs, to compute loss function
        -----------------------
        Params

        observations: chex.Array
                batch of states
        deterministic: bool
                use deterministic policy improve performance during the
                evaluation. (See 5.2 of the SAC paper).
        -----------------------
        Return
                actions, log_probs
        """
        mus, log_sigmas = self.actor.apply(actor_params, observations)

        if deterministic:
            return jnp.tanh(mus) * self.action_spec().maximum, None

        # sample actions according to normal distributions
        actions = mus + jax.random.normal(key, mus.shape) * jnp.exp(log_sigmas)

        # squash actions to enforce action bounds
        # (see appendix C in SAC paper)
        actions = jnp.tanh(actions) * self.action_spec().maximum
        # compute log_likelihood of the sampled actions
        log_probs = -0.5*jnp.log(2*jnp.pi) - log_sigmas - 0.5*((actions-mus)/jnp.exp(log_sigmas))**2

        # compute squashed log-likelihood
        # ! other implementations put a relu in the log
        # + 1e-6 to prevent log(0)
        log_probs -= jnp.sum(
            jnp.log(1 - jnp.tanh(actions)**2 + 1e-6),
            axis=1, keepdims=True
        )
        # for future plotting (with file plot.py)
        if logging:
            logger.debug('mus ' + f'{mus[0][0]}')
            logger.debug('squashed_mus ' + f'{(jnp.tanh(mus[0][0])*self.action_spec().maximum)}')
            logger.debug('sigmas ' + f'{jnp.exp(log_sigmas)[0][0]}')
            logger.debug('actions ' + f'{actions[0][0]}')
            logger.debug('log_probs ' + f'{log_probs[0][0]}')
        return actions, log_probs

    def select_action(self, obs: chex.Array, deterministic=False, logging=False) -> chex.Array:
        """
        Returns a single action sampled from actor's  distribution.
        This is meant to be used while interacting with the environment.
        ------------------
        Params

        obs: chex.Array
                a single observation
        deterministic: bool
                use deterministic policy improve performance during the
                evaluation. Read 5.2 of the SAC paper.
        """
        self.rng, key = jax.random.split(self.rng, 2)
        action, _ = self.select_actions(self.actor_params, jnp.expand_dims(obs, 0), key, deterministic, logging=logging)
        return action.squeeze(axis=0)

    def record(self, t, action, t_):
        """Records a transition in replay buffer"""
        self.memory.store_transition(t.observation, action, t_.reward, t_.observation, t_.step_type)

    def _update_value(self, value_params, value_opt_state, key, batch):
        # compute actions and log_probs from current policy
        actions, log_probs = self.select_actions(self.actor_params, batch.state, key)  # expect: JIT201

        # get minimum Q value (see end of 4.2 in the paper)
        # use actions from current policy and not from replay buffer (see 4.2 just after eq.6)
        state_action_input = jnp.concatenate((batch.state, actions), axis=1)
        q1 = jax.lax.stop_gradient(self.Q.apply(self.Q1_params, state_action_input))  # expect: JIT201
        q2 = jax.lax.stop_gradient(self.Q.apply(self.Q2_params, state_action_input))  # expect: JIT201
        q = jnp.minimum(q1, q2)

        def value_loss_fn(value_params, batch, target):
            value = self.value.apply(value_params, batch.state)
            return 0.5*mse_loss(value, target)

        value_loss, value_grads = jax.value_and_grad(value_loss_fn)(value_params, batch, q-log_probs)
        value_updates, value_opt_state = self.value_opt.update(value_grads, value_opt_state)
        value_params = optax.apply_updates(value_params, value_updates)
        logger.debug('value_loss ' + f'{value_loss}')  # expect: JIT203
        logger.debug('value_grad ' + f'{jnp.linalg.norm(value_grads["value_network/~/linear_0"]["w"][:, 0])}')  # expect: JIT203
        return value_params, value_opt_state

    def _update_actor(self, actor_params, actor_opt_state, key, state):

        def actor_loss_fn(actor_params, observations):
            actions, log_probs = self.select_actions(actor_params, observations, key)
            state_action_input = jnp.concatenate((state, actions), axis=1)

            q1 = jax.lax.stop_gradient(self.Q.apply(self.Q1_params, state_action_input))  # expect: JIT201
            q2 = jax.lax.stop_gradient(self.Q.apply(self.Q2_params, state_action_input))  # expect: JIT201
            q = jnp.minimum(q1, q2)
            return (log_probs-q).mean()

        actor_loss, actor_grads = jax.value_and_grad(actor_loss_fn)(
            actor_params, state
        )

        actor_updates, actor_opt_state = self.actor_opt.update(actor_grads, actor_opt_state)
        actor_params = optax.apply_updates(actor_params, actor_updates)
        logger.debug('actor_loss ' + f'{actor_loss}')  # expect: JIT203
        logger.debug('actor_grad ' + f'{jnp.linalg.norm(actor_grads["actor_network/~/linear_0"]["w"][:, 0])}')  # expect: JIT203
        return actor_loss, actor_params, actor_opt_state

    def _update_q(self, q1_params, q1_opt_state, q2_params, q2_opt_state, batch):
        # Reward scale. Read 5.2 of the SAC paper.

        # Compute next_Q instead of using the value function ?
        # self.rng, key = jax.random.split(self.rng, 2)
        # actions, log_probs = self.select_actions(self.actor_params, batch.next_state, key)
        # state_action_input = jnp.concatenate((batch.next_state, actions), axis=1)
        # q1 = jax.lax.stop_gradient(self.Q.apply(self.Q1_params, state_action_input))
        # q2 = jax.lax.stop_gradient(self.Q.apply(self.Q2_params, state_action_input))
        # next_q = jnp.minimum(q1, q2)
        q_hat = batch.reward  * self.reward_scale + (1-batch.done)*self.discount*\
                (jax.lax.stop_gradient(self.value.apply(self.value_target_params, batch.next_state))).mean(axis=1)  # expect: JIT201
                # next_q
        def q_loss(q_params, q_hat, state, action):
            state_action_input = jnp.concatenate((state, action), axis=1)
            q_r = self.Q.apply(q_params, state_action_input)  # _r is for replay buffer
            return 0.5*mse_loss(q_r, q_hat)

        # Compute loss using actions from replay buffer
        q1_loss, q1_grads = jax.value_and_grad(q_loss)(q1_params, q_hat, batch.state, batch.action)
        q1_updates, q1_opt_state = self.Q1_opt.update(q1_grads, q1_opt_state)
        q1_params = optax.apply_updates(q1_params, q1_updates)

        q2_loss, q2_grads = jax.value_and_grad(q_loss)(q2_params, q_hat, batch.state, batch.action)
        q2_updates, q2_opt_state = self.Q2_opt.update(q2_grads, q2_opt_state)
        q2_params = optax.apply_updates(q2_params, q2_updates)

        # for future plotting
        logger.debug('q1_loss ' + f'{q1_loss}')  # expect: JIT203
        logger.debug('q2_loss ' + f'{q2_loss}')  # expect: JIT203
        logger.debug('q1_grad ' + f'{jnp.linalg.norm(q1_grads["critic_network/~/linear_0"]["w"][:, 0])}')  # expect: JIT203
        logger.debug('q2_grad ' + f'{jnp.linalg.norm(q2_grads["critic_network/~/linear_0"]["w"][:, 0])}')  # expect: JIT203

        return q1_params, q1_opt_state, q2_params, q2_opt_state

    def learner_step(self):
        # get batch of transitions
        self.rng, key = jax.random.split(self.rng, 2)
        batch = self.memory.sample_batch(self.batch_size, key)

        self.rng, key = jax.random.split(self.rng, 2)

        # update value network
        self.value_params, self.value_opt_state = self.update_value(
            self.value_params, self.value_opt_state,
            key, batch
        )

        # update critic (Q) networks
        self.Q1_params, self.Q1_opt_state, self.Q2_params, self.Q2_opt_state = self.update_q(
            self.Q1_params, self.Q1_opt_state,
            self.Q2_params, self.Q2_opt_state,
            batch
        )

        # update actor network
        self.rng, key = jax.random.split(self.rng, 2)
        actor_loss, self.actor_params, self.actor_opt_state = self.update_actor(
            self.actor_params, self.actor_opt_state,
            key, batch.state
        )

        # tree_multimap applies function to all leads of paramater structure
        self.value_target_params = jax.tree_util.tree_map(
            lambda params, target_params: self.tau*params + (1-self.tau)*target_params,
            self.value_params, self.value_target_params)

        return None


if __name__ == "__main__":
    ActionSpec = namedtuple("ActionSpec", "shape maximum")
    obs_spec = lambda: ActionSpec((3,), None)
    action_spec = lambda: ActionSpec((1,), 2.0)
    agent = SACAgent(jax.random.PRNGKey(0), obs_spec, action_spec, batch_size=4, hidden_dims=(8, 8))
    for i in range(10):
        o = jax.random.normal(jax.random.PRNGKey(100 + i), (3,))
        agent.memory.store_transition(o, jnp.array([0.1 * i]), 1.0, o + 0.1, 0.0)

    agent.learner_step()
    n_first = len(LOG_RECORDS)
    agent.learner_step()
    agent.learner_step()
    print("debug records:", LOG_RECORDS)
    assert n_first == 8 and len(LOG_RECORDS) == 8  # emitted once, at trace time only
    assert all("Tracer" in m for m in LOG_RECORDS)  # tracer reprs, not numbers

    def same(a, b):
        return all(bool(jnp.allclose(x, y)) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))

    def shift_out(p, d=-100.0):
        q = {k: dict(v) for k, v in p.items()}
        last = sorted(q)[-1]
        q[last]["b"] = q[last]["b"] + d
        return q

    key = jax.random.PRNGKey(7)
    batch = agent.memory.sample_batch(4, key)
    actor0, q10, q20, vt0 = agent.actor_params, agent.Q1_params, agent.Q2_params, agent.value_target_params

    # _update_value: self.actor_params, self.Q1_params, self.Q2_params are baked in
    args = (agent.value_params, agent.value_opt_state, key, batch)
    base = agent.update_value(*args)
    results = {}
    for name, attr, new in [("actor", "actor_params", jax.tree_util.tree_map(lambda x: x + 1.0, actor0)),
                            ("Q1", "Q1_params", shift_out(q10)), ("Q2", "Q2_params", shift_out(q20))]:
        setattr(agent, attr, new)
        jit_out, fresh = agent.update_value(*args), agent._update_value(*args)
        results["value/" + name] = (same(jit_out, base), same(jit_out, fresh))
        setattr(agent, attr, {"actor_params": actor0, "Q1_params": q10, "Q2_params": q20}[attr])

    # _update_actor: self.Q1_params, self.Q2_params are baked in (compare the returned actor_loss)
    args = (agent.actor_params, agent.actor_opt_state, key, batch.state)
    base = agent.update_actor(*args)[0]
    for name, attr, new in [("Q1", "Q1_params", shift_out(q10)), ("Q2", "Q2_params", shift_out(q20))]:
        setattr(agent, attr, new)
        jit_out, fresh = agent.update_actor(*args)[0], agent._update_actor(*args)[0]
        print("actor_loss with", name, "shifted: jit", jit_out, "fresh", fresh)
        results["actor/" + name] = (same(jit_out, base), same(jit_out, fresh))
        setattr(agent, attr, {"Q1_params": q10, "Q2_params": q20}[attr])

    # _update_q: self.value_target_params is baked in (soft updates in learner_step never reach it)
    args = (agent.Q1_params, agent.Q1_opt_state, agent.Q2_params, agent.Q2_opt_state, batch)
    base = agent.update_q(*args)
    agent.value_target_params = jax.tree_util.tree_map(lambda x: x + 1.0, vt0)
    jit_out, fresh = agent.update_q(*args), agent._update_q(*args)
    results["q/value_target"] = (same(jit_out, base), same(jit_out, fresh))
    print(results)
    # jitted result unchanged by the attribute change, eager result changed
    assert all(r == (True, False) for r in results.values()), results
