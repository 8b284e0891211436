# source: https://github.com/Guillem96/rl-examples-jax/blob/3a1e96495cc8eae81e3241e53f64324af85133e9/blog.md (blog post "Cartpole with JAX", sections Replay Memory, The model, Take the action, Training step, Mix implementations; the same `take_action` is in rl_jax/cartpole/agent.py)
# observed on jax 0.10.2 CPU: on an exploration step the subkey `sk` that decided to explore (uniform) is consumed again to draw the random action (randint), so the random action is a function of the coin flip (silent key reuse)
# gap: flow-sensitive
# (added: haiku is not installed, so `hk.transform(forward_fn)` is replaced by a small stand-in `model` with the same init/apply and layer sizes; stand-ins for the author's `nn.losses.mse` and `nn.optim.simple_optimizer` from rl_jax/nn; a stand-in CartPole with the old gym API since gym is not installed; `jax.tree_multimap` spelled `jax.tree_util.tree_map`; MAX_EPISODES/MAX_EPISODE_STEPS made small; `return int(action)` spelled `int(action[0]) if action.ndim else int(action)` because current JAX refuses int() of the shape-(1,) randint result; the loop moved under `__main__` with key recording)
import copy
import random
from typing import *
from functools import partial
from collections import deque # Cyclic list with max capacity

import numpy as onp
import jax # Autograd package
import jax.numpy as np # GPU NumPy :)

JaxTensor = Any


class nn:  # stand-in for the author's rl_jax.nn package
    class losses:
        @staticmethod
        def mse(y_true, y_pred, reduction=None):
            loss = (y_true - y_pred) ** 2
            return np.mean(loss) if reduction == 'mean' else loss

    class optim:
        @staticmethod
        def simple_optimizer(param, gradient, learning_rate=1e-3):
            return param - learning_rate * gradient


class Transition(NamedTuple):
    state: JaxTensor
    next_state: JaxTensor
    action: Union[JaxTensor, int]
    reward: int
    is_terminal: bool

class ReplayMemory(object):

    def __init__(self, size: int = 1e5):
        self.memory = deque(maxlen=int(size))
    
    def experience(self, transition: Transition):
        self.memory.append(transition)

    def sample(self, sample_size: int) -> Sequence[Transition]:
        return random.sample(self.memory, k=sample_size)
    
    def __len__(self):
        return len(self.memory)


class _MLP:  # stand-in for hk.transform(forward_fn): Linear(300), relu, Linear(100), relu, Linear(2)
    sizes = (4, 300, 100, 2)

    def init(self, key, x):
        keys = jax.random.split(key, len(self.sizes) - 1)
        return [{'w': jax.random.normal(k, (m, n)) / onp.sqrt(m), 'b': np.zeros(n)}
                for k, m, n in zip(keys, self.sizes[:-1], self.sizes[1:])]

    def apply(self, params, x):
        for i, layer in enumerate(params):
            x = x @ layer['w'] + layer['b']
            if i < len(params) - 1:
                x = jax.nn.relu(x)
        return x

random_key = jax.random.PRNGKey(0)


# Haiku models has two functions: init and apply
#  - init: Initializes the model's weights given a mock input
#  - apply: Does a forward step
model = _MLP()

# When using haiku, model has to be initialized using mock inputs,
# they can be random
random_key, model_key = jax.random.split(random_key)
dqn_params = model.init(
    model_key, 
    jax.random.normal(model_key, shape=(1, 4)))
target_dqn_params = copy.deepcopy(dqn_params)


@jax.grad
@jax.jit
def backward_fn(params, observations, q_values, actions):
    logits = model.apply(params, observations)
    # We pick the values of taken actions
    logits = logits[np.arange(logits.shape[0]), actions]
    return nn.losses.mse(q_values, logits, reduction='mean') 

# Declare an SGD optimizer
optimizer = partial(nn.optim.simple_optimizer, 
                    learning_rate=1e-3)


def take_action(key, state):
    key, sk = jax.random.split(key)
    if jax.random.uniform(sk, shape=(1,)) < EPSILON:
        # Remember that we have only 2 actions (left, right)
        action = jax.random.randint(sk, shape=(1,), minval=0, maxval=2)  # expect: JIT502
    else:
        # Compute state QValues
        q_values = model.apply(dqn_params, state.reshape(1, -1))
        # Pick the action that maximizes the value
        action = np.argmax(q_values)
    
    return int(action[0]) if action.ndim else int(action)


BATCH_SIZE = 32
GAMMA = .99
EPSILON = .3

def train():
    if len(memory) < BATCH_SIZE:
        return dqn_params # No train because we do not have enough experiences
    # Experience replay
    transitions = memory.sample(BATCH_SIZE)
        
    # Convert transition into tensors
    transitions = Transition(*zip(*transitions))
    states = np.array(transitions.state)
    next_states = np.array(transitions.next_state)
    actions = np.array(transitions.action)
    rewards = np.array(transitions.reward)
    is_terminal = np.array(transitions.is_terminal)

    # Compute the next Q values using the target parameters
    # We vectorize the model using vmap to work with batches
    next_Q_values = model.apply(target_dqn_params, next_states)
    # Bellman equation
    yj = rewards + GAMMA * np.max(next_Q_values, axis=-1)
    # In case of terminal state we set a 0 reward
    yj = np.where(is_terminal, 0, yj)

    # Compute the Qvalues corresponding to the sampled transitions
    # and backpropagate the mse loss to compute the gradients
    gradients = backward_fn(dqn_params, states, yj, actions)
    
    # Update the policy gradients and return the
    # updated model
    # Using tree_multimap we apply the optimizer to all parameters
    return jax.tree_util.tree_map(optimizer, dqn_params, gradients)


class CartPole:  # stand-in for gym.make('CartPole-v1') with the old gym API
    def __init__(self):
        self.np_random = onp.random.default_rng(0)

    def reset(self):
        self.state = self.np_random.uniform(-0.05, 0.05, size=(4,))
        return self.state.astype(onp.float32)

    def render(self):
        pass

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if int(action) == 1 else -10.0
        costheta, sintheta = onp.cos(theta), onp.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = onp.array([x, x_dot, theta, theta_dot])
        done = bool(abs(x) > 2.4 or abs(theta) > 12 * 2 * onp.pi / 360)
        return self.state.astype(onp.float32), 1.0, done, {}


if __name__ == "__main__":
    # record which keys the two draws of take_action consume
    uniform_keys, randint_keys = [], []
    _uniform, _randint = jax.random.uniform, jax.random.randint
    def recording_uniform(key, *a, **k):
        uniform_keys.append(tuple(onp.asarray(key).tolist()))
        return _uniform(key, *a, **k)
    def recording_randint(key, *a, **k):
        randint_keys.append(tuple(onp.asarray(key).tolist()))
        return _randint(key, *a, **k)
    jax.random.uniform, jax.random.randint = recording_uniform, recording_randint

    MAX_EPISODES = 2
    MAX_EPISODE_STEPS = 20

    env = CartPole()

    memory = ReplayMemory()

    for i_episode in range(MAX_EPISODES):
        state = env.reset()
        for timestep in range(MAX_EPISODE_STEPS):
            env.render() # Display the environment
            
            # Take an action
            random_key, subkey = jax.random.split(random_key)
            action = take_action(subkey, state)
            next_state, reward, done, _ = env.step(action)
            
            # Generate a transition
            t = Transition(state=state, next_state=next_state, 
                           reward=reward, is_terminal=done,
                           action=action)
            memory.experience(t) # Store the transition
            dqn_params = train() # Update the agent with experience replay

            state = next_state

            if done: 
                break # The pole has felt
            
        # At the end of the episode we update the target parameters
        # Remember that during the episode we have updated the dqn parameters
        target_dqn_params = copy.deepcopy(dqn_params)

    jax.random.uniform, jax.random.randint = _uniform, _randint
    assert randint_keys, "no exploration step happened"
    assert all(k in uniform_keys for k in randint_keys)
    print(f"line 102: all {len(randint_keys)} random actions were drawn with the key already consumed by the epsilon coin flip")
# observed: line 102 every exploration step draws its random action with the subkey `sk` that the epsilon test already consumed
