# source: https://github.com/Juno-T/jax-rl/blob/e5b9e8bf17d361917435e333b3846883626dcb92/agents/simple_agent.py (with value_prediction/approximator.py, value_prediction/q.py, agents/base.py and utils/experience.py at the same commit; the agent is driven on Blackjack-v1 in tmp.ipynb)
# observed on jax 0.10.2 CPU: `appr_q_all_batch = jax.jit(jax.vmap(self.appr.q_all))` bakes the Q table read in `v` into the compiled code; after `learn_one_ep` updates `self.table`, the next episode of the same length reads the old table (silent stale Q values)
# gap: stale-state-attributes
# (added: the modules merged into one file, LinearApproximator/epsLinearAgent/RandomAgent left out; a stand-in `BlackjackSpaces` env with the spaces of gym's Blackjack-v1, since gym is not installed; the `__main__` block)
from abc import ABC, abstractmethod
from functools import partial
from typing import NamedTuple, Any

import numpy as np
import jax
from jax import random
import jax.numpy as jnp


class TimeStep(NamedTuple):
  step_type: int = 0  # is terminal step
  obsv: Any = None
  reward: float = 0.0
  discount: float = 1.0


def q_learning_target(r_t, q_t, discount_t):
  """
  target = r_t + max(q_t)
  """

  target = r_t + discount_t * jnp.max(q_t)
  return target

def q_learning(q_tm1, a_tm1, r_t, q_t, discount_t, stop_gradient = False):
  target = q_learning_target(r_t, q_t, discount_t)
  target = jax.lax.select(stop_gradient, jax.lax.stop_gradient(target), target)
  return target - q_tm1[a_tm1]


class tabularApproximator:
  def __init__(self, state_range, ordered_state=False):
    self._state_range = [jnp.sort(jnp.array(r)) for r in state_range]
    self.table = jnp.zeros([len(r) for r in state_range], dtype=jnp.float32)
    self.ordered_state = ordered_state

  def init_table(self, table):
    """ 
      Manually init table
    """
    assert(self.table.shape == table.shape)
    self.table = table

  def v(self, state):
    """
    """
    # assert(len(state) == len(self._state_range))
    return self.table[tuple(self.indexof(state))]  # expect: JIT201

  # @partial(jax.jit, static_argnums=(0,))
  def indexof(self, state):
    if self.ordered_state:
      return state.astype(jnp.int32)
    idx = []
    for i in range(len(state)):
      idx.append(jnp.searchsorted(self._state_range[i], state[i]))
    return idx

  def update(self, state, value):
    self.table = self.table.at[tuple(self.indexof(state))].set(value)
    return 0

  def batch_update(self, states, values):
    
    for s, v in zip(states, values):
      self.update(s,v)

class tabularQApproximator(tabularApproximator):
  def __init__(self, state_range, action_range, ordered_state=False):
    try:
      _ = len(action_range)
    except:
      action_range = [action_range]
    super().__init__(list(state_range)+list(action_range), ordered_state)

  def q(self, state, action):
    return super().v(self.parse_state_action(state, action))

  def q_all(self, state):
    return super().v(state)


  def update(self, state, action, value):
    return super().update(self.parse_state_action(state,action), value)

  def batch_update(self, states, actions, values):
    for args in zip(states, actions, values):
      self.update(*args)
      
  def parse_state_action(self, state, action):
    """
    state: array-like
    action: array-like
    """
    if action is None:
      return jnp.array(state)
    try:
      _ = len(action)
    except:
      action = [action]
    return jnp.concatenate((jnp.array(state), jnp.array(action)), axis=0)


class Agent(ABC):
  def __init__(self):
    pass

  @abstractmethod
  def train_init(self, rng_key):
    pass


  @abstractmethod
  def episode_init(self, initial_observation):
    pass

  @abstractmethod
  def act(self, observation, rngkey=None):
    pass

  def eval_act(self, observation, rngkey=None):
    return self.act(observation, rngkey)


class epsilonGreedyAgent(Agent):
  """
  Agent acts (behavior policy) with epsilon greedy.
  Agent learns with q learning with tabular function approximator.
  """
  def __init__(self, env, epsilon, learning_rate=0.1):
    self.env = env
    self.state_space = env.observation_space
    self.action_space = env.action_space
    self.appr = tabularQApproximator(
        [np.arange(sp.n) for sp in self.state_space],
        [np.arange(self.action_space.n)],
        ordered_state = True)
    self.appr_q_all_batch = jax.jit(jax.vmap(self.appr.q_all))
    self.lr = learning_rate
    self.discount=0.9
    self.epsilon = epsilon

  def train_init(self, rng_key):
    self.appr.init_table(jnp.zeros_like(self.appr.table))

  def episode_init(self, initial_observation):
    pass


  def act(self, observation, rngkey):
    q_t = self.appr.q(observation, None)
    argmax_a = jnp.argmax(q_t)
    rn = random.uniform(rngkey)
    return int( (rn<self.epsilon)* self.action_space.sample() + (rn>=self.epsilon)*argmax_a), self.discount

  def learn_one_ep(self, episode):
    a_tm1, timesteps = episode
    q_all = self.appr_q_all_batch(timesteps.obsv)
    a_tm1 = a_tm1[1:]
    s_tm1 = timesteps.obsv[:-1]
    r_t = timesteps.reward[1:]
    q_tm1 = q_all[:-1]
    q_t = q_all[1:]
    @partial(jax.vmap, in_axes=(0,0,0,0,None, None))
    def _batched_q_learning_update(*args):
      return q.q_learning(*args[:5])*args[5]+args[0][args[1]]
    updated = _batched_q_learning_update(q_tm1, a_tm1, r_t, q_t, self.discount, self.lr)
    self.appr.batch_update(s_tm1, a_tm1, updated)


class q:  # stands in for `from value_prediction import q`
  q_learning = staticmethod(q_learning)


class _Discrete:  # stand-in for gym.spaces.Discrete
  def __init__(self, n):
    self.n = n
  def sample(self):
    return np.random.randint(self.n)


class BlackjackSpaces:  # stand-in for gym.make('Blackjack-v1'): only its spaces are used
  observation_space = (_Discrete(32), _Discrete(11), _Discrete(2))
  action_space = _Discrete(2)


if __name__ == "__main__":
  agent = epsilonGreedyAgent(BlackjackSpaces(), 0.8, learning_rate=0.1)
  agent.train_init(random.PRNGKey(0))
  # one Blackjack episode of three steps: hit, hit, stick with reward 1
  obsv = jnp.array([[14, 10, 0], [18, 10, 0], [20, 10, 0]])
  episode = (jnp.array([0, 1, 0]), TimeStep(obsv=obsv, reward=jnp.array([0., 0., 1.])))
  agent.learn_one_ep(episode)
  agent.learn_one_ep(episode)
  stale = agent.appr_q_all_batch(obsv)
  fresh = jax.vmap(agent.appr.q_all)(obsv)
  print("table after two episodes:", fresh[1])
  print("jitted q_all_batch sees:  ", stale[1])
  assert float(jnp.abs(fresh).sum()) > 0 and float(jnp.abs(stale).sum()) == 0.0
  print("line 53: the jitted read of self.table returns the zero table it was traced with")
# observed: line 53 after `learn_one_ep` has written Q values into `self.table`, `appr_q_all_batch` of the same episode length still returns the all-zero table captured at its first trace
