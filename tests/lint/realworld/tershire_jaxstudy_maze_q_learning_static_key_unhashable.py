# source: https://github.com/Tershire/JAX_Study/blob/35092af9e735fb49e1c7e4e9692f8e79bf8ab149/S05/maze/q_learning_jax.py
#   (a learner's JAX study repository, session 5: tabular Q-learning on a maze, first in
#   NumPy, then a "work in progress" JAX version; the learner's own docstring notes that
#   "'PRNGKeyArray' is unhashable and non-hashable static arguments are not supported")
# observed on jax 0.10.2 CPU: the NumPy half trains and prints; the JAX half jits run_step
#   with `subkey` among its static_argnames, and the first call in run_episode raises
#   ValueError "Non-hashable static arguments are not supported" (a typed key array is not
#   hashable). That error hides the next ones (tolerated): with `subkey` traced, the Python
#   `if` on a uniform draw in select_action raises TracerBoolConversionError; past it, the
#   Python `match` on the traced action in Maze.step raises it again; the in-place write
#   to the traced q_table raises TypeError; and learn hands the same key to every episode.
#   (np.argmax and np.max of the traced rows work: NumPy defers to the tracer's methods.)
# gap: static-hashability
# added: maze_environment.py of the same repository (commit 5dc00ab) inlined above the
#   script and bound to the name `maze_environment`.
import types

import numpy as np
import random
from enum import Enum


class Cell(Enum):
    BLANK = 0
    START = 1
    GOAL = 2
    WALL = 3


class Action(Enum):
    MOVE_LEFT = 0
    MOVE_DOWN = 1
    MOVE_RIGHT = 2
    MOVE_UP = 3


class Maze:
    def __init__(self, grid_size: (int, int), wall_positions: list[(int, int)]):
        self.grid = np.full(grid_size, Cell.BLANK)
        self.grid_size = grid_size
        self.wall_positions = wall_positions
        self.agent_position = np.array([0, 0])
        self.episode_length = 0
        self.observation_space = self.Observation_Space(self.grid_size)
        self.action_space = self.Action_Space()

    class Observation_Space:
        def __init__(self, grid_size):
            self.grid_size = grid_size
            self.n = grid_size[0]*grid_size[1]

        def compute_observation(self, agent_position):
            return agent_position[0]*self.grid_size[0] + agent_position[1]

    class Action_Space:
        def __init__(self):
            self.n = len(Action)
            self.Action = [action for action in Action]

        def sample(self):
            return random.sample(self.Action, 1)[0].value

    def step(self, action):
        match action:
            case Action.MOVE_LEFT.value:  # tolerate: JIT101
                self.agent_position[1] -= 1
            case Action.MOVE_DOWN.value:
                self.agent_position[0] += 1
            case Action.MOVE_RIGHT.value:
                self.agent_position[1] += 1
            case Action.MOVE_UP.value:
                self.agent_position[0] -= 1

        # check for various cases
        reward = -1
        terminated = False
        truncated = False
        if self.episode_length > 150:
            truncated = True

        # check if agent is off-grid
        agent_is_off_grid = self.check_and_control_if_agent_is_off_grid()
        if agent_is_off_grid:
            reward = -2
            terminated = True

        else:  # cases when agent is on-grid
            match self.grid[self.agent_position[0], self.agent_position[1]]:
                case Cell.BLANK:
                    reward = -1
                case Cell.START:
                    reward = -1
                case Cell.WALL:
                    reward = -2  # how much is reasonable (?)
                case Cell.GOAL:
                    reward = +10  # how much is reasonable (?)
                    terminated = True

        observation = self.observation_space.compute_observation(self.agent_position)

        # count episode length
        self.episode_length += 1

        info = dict()

        return observation, reward, terminated, truncated, info

    def reset(self):
        self.place_start()
        self.place_goal()
        self.place_walls()
        self.agent_position = np.array([0, 0])
        self.episode_length = 0

        observation = self.observation_space.compute_observation(self.agent_position)
        info = dict()

        return observation, info

    def place_start(self):
        self.grid[0, 0] = Cell.START

    def place_goal(self):
        self.grid[self.grid_size[0] - 1, self.grid_size[1] - 1] = Cell.GOAL

    def place_walls(self):
        for wall_position in self.wall_positions:
            self.grid[wall_position[0], wall_position[1]] = Cell.WALL

    def check_and_control_if_agent_is_off_grid(self):
        agent_is_off_grid = False
        if self.agent_position[0] < 0:
            self.agent_position[0] += 1
            agent_is_off_grid = True
        if self.agent_position[0] >= self.grid_size[0]:
            self.agent_position[0] -= 1
            agent_is_off_grid = True
        if self.agent_position[1] < 0:
            self.agent_position[1] += 1
            agent_is_off_grid = True
        if self.agent_position[1] >= self.grid_size[1]:
            self.agent_position[1] -= 1
            agent_is_off_grid = True

        return agent_is_off_grid


    # render
    def render(self, render_mode):
        match render_mode:
            case "cell_name":
                rendered_grid = np.full(self.grid_size, '')
                for i in np.arange(self.grid_size[0]):
                    for j in np.arange(self.grid_size[1]):
                        rendered_grid[i, j] = self.grid[i, j].name
                return rendered_grid


maze_environment = types.SimpleNamespace(Maze=Maze)

# q_learning_jax.py

# Arz
# 2024 MAY 18 (SAT)

"""
⚠️ work in progress
Q-Learning agent for maze.
compare cases without and with JAX.
"""

# reference:


import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, lax
from functools import partial


# environment setting
wall_positions = np.array([(1, 3), (1, 4), (2, 1), (3, 1), (3, 3), (4, 3)])
env = maze_environment.Maze((5, 5), wall_positions)

# initialize environment
env.reset()
print(env.render("cell_name"))

# training setting
max_num_episodes = 1000
alpha = 0.1  # learning rate
gamma = 0.99  # discount
epsilon = 0.1  # epsilon-greedy param


# 1) without JAX
q_table = np.zeros((env.observation_space.n, env.action_space.n))


def select_action(q_table, state, epsilon):
    """epsilon-greedy"""
    if np.random.rand() < epsilon:
        action = env.action_space.sample()
    else:
        action = np.argmax(q_table[state])

    return action


def run_step(state, q_table, alpha, gamma, epsilon):
    action = select_action(q_table, state, epsilon)

    state_tp1, reward_tp1, terminated, truncated, info = env.step(action)
    done = terminated or truncated

    q_value = q_table[state, action]
    td_target = reward_tp1 + gamma*np.max(q_table[state_tp1])
    q_table[state, action] = q_value + alpha*(td_target - q_value)

    state = state_tp1

    return state, q_table, done


def run_episode(env, q_table, alpha, gamma, epsilon):
    state, _ = env.reset()
    done = False

    while not done:
        state, q_table, done = run_step(state, q_table, alpha, gamma, epsilon)


def learn(max_num_episodes, env, q_table, alpha, gamma, epsilon):
    for episode in range(max_num_episodes):
        run_episode(env, q_table, alpha, gamma, epsilon)


learn(max_num_episodes, env, q_table, alpha, gamma, epsilon)

# training result
print(q_table)

arrows = {0: '←', 1: '↓', 2: '→', 3: '↑'}
def display_greedy_action_per_state(env, q_table):
    grid = np.full(env.grid_size, '')
    for i in range(env.grid_size[0]):
        for j in range(env.grid_size[1]):
            state = env.observation_space.compute_observation(np.array([i, j]))
            action = np.argmax(q_table[state])
            grid[i, j] = arrows[action]

            # case when all the actions have the equal value
            if np.all(q_table[state] == q_table[state][0]):
                grid[i, j] = '*'

    print(grid)

display_greedy_action_per_state(env, q_table)


# 1) with JAX
q_table = np.zeros((env.observation_space.n, env.action_space.n))
"""
should q_table be np or jnp (?)
jnp is immutable. then how can (?)
"""

key = jax.random.key(0)


def random_sample_a_action(q_values_for_a_state, subkey):
    jax.random.choice()



def select_action(q_table, state, epsilon, subkey):
    """epsilon-greedy"""
    if jax.random.uniform(subkey) < epsilon:  # tolerate: JIT101
        action = env.action_space.sample()
    else:
        action = np.argmax(q_table[state])

    return action
"""
how and where should I use jax.random for a function (?)
should I pass key as a parameter (?)
if epsilon rarely changes, setting it as static using @partial could be a good solution.
however, even in this case, the condition depends on the value of subkey.
then, one could try to set subkey as static using @partial,
but 'PRNGKeyArray' is unhashable and non-hashable static arguments are not supported.
"""

@partial(jit, static_argnames=["epsilon", "subkey"])
def run_step(state, q_table, alpha, gamma, epsilon, subkey):
    _, subkey = jax.random.split(subkey)  # tolerate: JIT502
    action = select_action(q_table, state, epsilon, subkey)

    state_tp1, reward_tp1, terminated, truncated, info = env.step(action)
    done = terminated or truncated

    q_value = q_table[state, action]
    td_target = reward_tp1 + gamma*np.max(q_table[state_tp1])
    q_table[state, action] = q_value + alpha*(td_target - q_value)  # tolerate: JIT501

    state = state_tp1

    return state, q_table, done, subkey


def run_episode(env, q_table, alpha, gamma, epsilon, subkey):
    state, _ = env.reset()
    done = False

    while not done:
        state, q_table, done, subkey = run_step(state, q_table, alpha, gamma, epsilon, subkey)  # expect: JIT302


def learn(max_num_episodes, env, q_table, alpha, gamma, epsilon, key):
    for episode in range(max_num_episodes):
        run_episode(env, q_table, alpha, gamma, epsilon, key)  # tolerate: JIT502


learn(max_num_episodes, env, q_table, alpha, gamma, epsilon, key)

# training result
print(q_table)

display_greedy_action_per_state(env, q_table)
