# source: https://github.com/arjun-prakash/stackelberg-reach-avoid/blob/d983fca6b4c7344e2f411e9982c395ff5fd60580/gym_examples/src/jax_env_test.py
#   (REINFORCE for a two-player reach-avoid game; the environment is TwoPlayerDubinsCarEnv of
#   gym_examples/envs/two_player_dubins_car_jax.py at the same commit)
# observed on jax 0.10.2 CPU: keys are drawn from more than once. `_reset` draws x, y and theta of
#   each player from one subkey (the attacker's x, y and heading are one uniform number rescaled,
#   so every start lies on a line); each scan step draws the defender's and the attacker's actions
#   from the same rng_step and hands that consumed rng_step on as the next step's key; rollout_body
#   hands back the subkey that rollout already split, so the next episode splits it again. The
#   __main__ block runs the rollouts under jit as train() does, then records the keys each draw and
#   split receives (under jax.disable_jit) to show every reuse.
# gap: other
# added/changed: stand-ins for gym's spaces and the base class DubinsCarEnv (gym is not installed);
#   the environment trimmed to the methods the rollout uses (render, decode and the action helpers
#   left out); from jax_env_test.py the unused random_policy, the config/yaml loading (game_type
#   set to 'Nash'), the GPU platform line and train()'s network updates left out; the __main__ block
#   runs train()'s fori_loop over rollout_body under jit, with 4 episodes of 5 steps.
import jax
import jax.numpy as jnp
import numpy as np
import haiku as hk


class spaces:  # stand-in for gym.spaces
    Discrete = staticmethod(lambda n: n)
    Box = staticmethod(lambda low, high, dtype: (low, high, dtype))


class DubinsCarEnv:  # stand-in for envs.dubins_car.DubinsCarEnv (a gym.Env)
    def __init__(self):
        pass


class TwoPlayerDubinsCarEnv(DubinsCarEnv):
    metadata = {'render.modes': ['human']}

    def __init__(self, game_type, num_actions, size, reward, max_steps, init_defender_position, init_attacker_position, capture_radius, goal_position, goal_radius, timestep, v_max, omega_max):
        super().__init__()

        self.game_type = game_type
        self.players = ['defender', 'attacker']
        self.num_actions = num_actions #3
        self.action_space = {'attacker':spaces.Discrete(self.num_actions), 'defender':spaces.Discrete(self.num_actions)}

        self.size = 3#4
        self.reward = reward #1
        self.max_steps = max_steps# 50

        self.observation_space= {'attacker':spaces.Box(low=np.array([-self.size, -self.size, 0]), high=np.array([self.size,self.size , 2*jnp.pi]), dtype=jnp.float32), 
                                'defender':spaces.Box(low=np.array([-self.size, -self.size, 0]), high=np.array([self.size, self.size, 2*jnp.pi]), dtype=jnp.float32)}

        self.init_defender_position = init_defender_position #jnp.array([0,0,0])
        self.init_attacker_position = init_attacker_position #jnp.array([2,2,0])
        self.state = {'attacker': jnp.array([self.init_attacker_position]), 'defender':jnp.array(self.init_defender_position)}
        self.capture_radius = capture_radius #0.5 # radius of the obstacle

        self.goal_position = jnp.array(goal_position) # position of the goal
        self.goal_radius = goal_radius # minimum distance to goal to consider the task as done

        self.timestep = timestep # timestep in seconds
        self.v_max = v_max # maximum speed
        self.omega_max = omega_max * jnp.pi/180  # maximum angular velocity (radians)
        self.images = []
        self.positions = {'attacker': [], 'defender': []}

    def _reset(self, key):
        # Use JAX random to set initial positions if needed
        key, subkey1, subkey2 = jax.random.split(key, 3)

        # Example of setting random positions; adapt as necessary for your environment
        defender_x = jax.random.uniform(subkey1, minval=0, maxval=0)
        defender_y = jax.random.uniform(subkey1, minval=-2, maxval=-2)  # expect: JIT502
        defender_theta = jax.random.uniform(subkey1, minval=0, maxval=2 * jnp.pi)  # expect: JIT502

        attacker_x = jax.random.uniform(subkey2, minval=-self.size, maxval=self.size)
        attacker_y = jax.random.uniform(subkey2, minval=2, maxval=self.size)  # expect: JIT502
        attacker_theta = jax.random.uniform(subkey2, minval=0, maxval=2 * jnp.pi)  # expect: JIT502

        # Set initial state using provided positions or randomized ones
        state = {
            'defender': jnp.array([defender_x, defender_y, defender_theta]),
            'attacker': jnp.array([attacker_x, attacker_y, attacker_theta])
        }

        return state, key

    def _update_state(self, state, action, player):
        # Map actions to omega values
        omega = jnp.where(action == 0, -self.omega_max, 
              jnp.where(action == 2, self.omega_max, 0))

        # Compute the new state
        new_theta = state[player][2] + omega * self.timestep
        new_x = state[player][0] + self.v_max * jnp.cos(new_theta) * self.timestep
        new_y = state[player][1] + self.v_max * jnp.sin(new_theta) * self.timestep

        # Update the state immutably
        new_player_state = jnp.array([new_x, new_y, new_theta % (2 * jnp.pi)])

        # Update the state dictionary immutably
        new_state = {**state, player: new_player_state}
        return new_state

    def _get_reward_done(self, state, player):
        # Calculate the distance of the attacker from the goal
        dist_goal = jnp.linalg.norm(state['attacker'][:2] - self.goal_position)

        # Check if the attacker has reached the goal
        done_win = dist_goal < self.goal_radius

        # Check if the attacker is caught by the defender
        done_loss = jnp.linalg.norm(state['attacker'][:2] - state['defender'][:2]) < self.capture_radius

        # Assign rewards based on the conditions
        reward = jnp.where(done_win, 200, -((dist_goal - self.goal_radius)**2))
        reward = jnp.where(done_loss, -200, reward)

        # Determine if the episode is done (either win or loss)
        done = jnp.logical_or(done_win, done_loss)

        return reward, done

    def step(self, key, env_state, action, player):
        state = env_state
        new_state = self._update_state(state, action, player)
        reward, done = self._get_reward_done(new_state, player)
        #new_state = self._reset_if_done(key, new_state, done)
        nn_state = self.encode_helper(new_state)
        return new_state, nn_state, reward, done

    def reset(self, key):
        # Implement the reset logic
        env_state = self._reset(key)  # You need to implement this _reset method
        new_state = env_state[0]
        nn_state = self.encode_helper(new_state)
        return env_state, new_state, nn_state

    def encode_helper(self, env_state):
        min_value = -self.size
        max_value = self.size

        def normalize_coordinate(coordinate, min_value, max_value):
            return (coordinate - min_value) / (max_value - min_value)

        goal_position = self.goal_position
        attacker_state = env_state['attacker']
        defender_state = env_state['defender']

        attacker_x_norm = normalize_coordinate(attacker_state[0], min_value, max_value)
        attacker_y_norm = normalize_coordinate(attacker_state[1], min_value, max_value)
        attacker_theta = attacker_state[2]

        defender_x_norm = normalize_coordinate(defender_state[0], min_value, max_value)
        defender_y_norm = normalize_coordinate(defender_state[1], min_value, max_value)
        defender_theta = defender_state[2]

        goal_x_norm = normalize_coordinate(goal_position[0], min_value, max_value)
        goal_y_norm = normalize_coordinate(goal_position[1], min_value, max_value)

        distance_attacker_goal = jnp.linalg.norm(jnp.array([goal_x_norm, goal_y_norm]) -jnp.array([attacker_x_norm, attacker_y_norm]))
        direction_attacker_goal = jnp.arctan2(goal_y_norm - attacker_y_norm, goal_x_norm - attacker_x_norm)

        angle_diff_attacker_goal = direction_attacker_goal - attacker_theta
        angle_diff_attacker_goal = (angle_diff_attacker_goal + jnp.pi) % (2 * jnp.pi) - jnp.pi
        facing_goal_attacker = jnp.cos(angle_diff_attacker_goal)

        direction_attacker_defender = jnp.arctan2(defender_y_norm - attacker_y_norm, defender_x_norm - attacker_x_norm)

        angle_diff_attacker_defender = direction_attacker_defender - attacker_theta
        angle_diff_attacker_defender = (angle_diff_attacker_defender + jnp.pi) % (2 * jnp.pi) - jnp.pi
        facing_defender_attacker = jnp.cos(angle_diff_attacker_defender)

        angle_diff_defender_attacker = direction_attacker_defender - defender_theta + jnp.pi
        angle_diff_defender_attacker = (angle_diff_defender_attacker + jnp.pi) % (2 * jnp.pi) - jnp.pi
        facing_attacker_defender = jnp.cos(angle_diff_defender_attacker)

        dx = jnp.abs(attacker_x_norm - defender_x_norm)
        dy = jnp.abs(attacker_y_norm - defender_y_norm)
        dx_wrap = jnp.abs(dx - 1.0)
        dy_wrap = jnp.abs(dy - 1.0)
        min_dx = jnp.minimum(dx, dx_wrap)
        min_dy = jnp.minimum(dy, dy_wrap)
        wrapped_diff = jnp.array([min_dx, min_dy])
        distance_attacker_defender = jnp.linalg.norm(wrapped_diff)

        nn_state = jnp.array([attacker_x_norm, 
                             attacker_y_norm, 
                             jnp.cos(attacker_theta), 
                             jnp.sin(attacker_theta), 
                             defender_x_norm, 
                             defender_y_norm, 
                             jnp.cos(defender_theta), 
                             jnp.sin(defender_theta), 
                             distance_attacker_goal, 
                             facing_goal_attacker, 
                             distance_attacker_defender, 
                             facing_defender_attacker,
                             facing_attacker_defender
                            ])

        return nn_state


# ---- gym_examples/src/jax_env_test.py ----

def select_action(params, policy_net,  nn_state, key):
    probs = policy_net.apply(params, nn_state)
    probs = probs
    return jax.random.choice(key, a=3, p=probs)


#@partial(jax.jit, static_argnums=1)
def rollout(rng_input, params_defender, params_attacker, steps_in_episode):
    """
    Perform a rollout in a JAX-compatible environment using lax.scan for JIT compatibility.
    """
    # Reset the environment

    def policy_step(state_input, _):
        """lax.scan compatible step transition in JAX environment."""
        state, nn_state, prev_done, rng = state_input
        rng, rng_step = jax.random.split(rng)  # expect: JIT502
        #action_defender = random_policy(rng_step)
        action_defender = select_action(params_defender, policy_net, nn_state, rng_step)
        next_state, nn_state, reward, next_done = env.step(rng_step, state, action_defender, 'defender')
        #action_attacker = random_policy(rng_step)
        action_attacker =select_action(params_attacker, policy_net, nn_state, rng_step)  # expect: JIT502
        next_state, nn_state, reward, next_done = env.step(rng_step, next_state, action_attacker, 'attacker')
        done = jnp.logical_or(prev_done, next_done)
        carry = (next_state,nn_state, done, rng_step)

        return carry, (action_defender, action_attacker, next_state, nn_state,reward, done)

    def calculate_discounted_returns(rewards, discount_factor):
        """Calculate discounted cumulative returns using JAX vectorized operations."""
        # Reverse the rewards array
        rewards_reversed = jnp.flip(rewards, axis=0)
        
        # Calculate discounted returns
        discounts = discount_factor ** jnp.arange(rewards_reversed.size)
        discounted_rewards_reversed = rewards_reversed * discounts
        
        # Compute the cumulative sum in reverse order and then reverse it back
        discounted_returns = jnp.flip(jnp.cumsum(discounted_rewards_reversed), axis=0)

        return discounted_returns

    env = TwoPlayerDubinsCarEnv(
        game_type=game_type,
        num_actions=3,
        size=3,
        reward='',
        max_steps=50,
        init_defender_position=[0,0,0],
        init_attacker_position=[2,2,0],
        capture_radius=0.3,
        goal_position=[0,-3],
        goal_radius=1,
        timestep=1,
        v_max=0.25,
        omega_max=30,
    )   

    policy_net = hk.without_apply_rng(hk.transform(policy_network))
    value_net = hk.without_apply_rng(hk.transform(value_network))

    rng_reset, rng_episode = jax.random.split(rng_input)
    obs, state, nn_state = env.reset(rng_reset)

    # Scan over the episode step loop
    initial_carry = (state, nn_state, False, rng_episode)
    _, scan_out = jax.lax.scan(policy_step, initial_carry, None, length=steps_in_episode)

    # Unpack scan output
    actions_defender,actions_attacker, states, nn_states, rewards, dones = scan_out

    #update networks

    returns = calculate_discounted_returns(rewards, 0.99)

    return actions_defender, actions_attacker, states, nn_states, returns, dones

def rollout_body(i, carry):
    rng_input,  params_defender, params_attacker, params_value, all_actions_defender, all_actions_attacker ,all_nn_states, all_returns, all_dones = carry
    rng_input, subkey = jax.random.split(rng_input)  # expect: JIT502
    actions_defender, actions_attacker, states, nn_states, returns, dones = rollout(subkey, params_defender, params_attacker, steps_in_episode)

    # Store the results of this rollout
    all_actions_defender = all_actions_defender.at[i, :].set(actions_defender)
    all_actions_attacker = all_actions_attacker.at[i, :].set(actions_attacker)
    all_nn_states = all_nn_states.at[i, :].set(nn_states) 
    all_returns = all_returns.at[i, :].set(returns)
    all_dones = all_dones.at[i, :].set(dones)

    return subkey, params_defender, params_attacker, params_value, all_actions_defender, all_actions_attacker, all_nn_states, all_returns, all_dones


def policy_network(observation):
    net = hk.Sequential(
        [
            hk.Linear(64),
            jax.nn.relu,
            hk.Linear(64),
            jax.nn.relu,
            hk.Linear(64),
            jax.nn.relu,
            hk.Linear(64),
            jax.nn.relu,
            hk.Linear(env.num_actions),
            jax.nn.softmax,
        ]
    )
    return net(observation)

def value_network(observation):
        net = hk.Sequential(
            [
                hk.Linear(64),
                jax.nn.relu,
                hk.Linear(64),
                jax.nn.relu,
                hk.Linear(1),
            ]
        )
        return net(observation)


game_type = 'Nash'

env = TwoPlayerDubinsCarEnv(
        game_type=game_type,
        num_actions=3,
        size=3,
        reward='',
        max_steps=5,
        init_defender_position=[0,0,0],
        init_attacker_position=[2,2,0],
        capture_radius=0.3,
        goal_position=[0,-3],
        goal_radius=1,
        timestep=1,
        v_max=0.25,
        omega_max=30,
    )   

steps_in_episode = 5
num_episodes = 4


if __name__ == "__main__":
    import inspect

    k_reset, k_def, k_att, k_val = jax.random.split(jax.random.PRNGKey(1), 4)
    obs, state, nn_state = env.reset(k_reset)
    policy_net = hk.without_apply_rng(hk.transform(policy_network))
    value_net = hk.without_apply_rng(hk.transform(value_network))
    params_defender = policy_net.init(k_def, nn_state)
    params_attacker = policy_net.init(k_att, nn_state)
    params_value = value_net.init(k_val, nn_state)

    def collect(subkey):  # train()'s fori_loop over rollout_body
        carry = (subkey, params_defender, params_attacker, params_value,
                 jnp.zeros((num_episodes, steps_in_episode), dtype=jnp.int32),
                 jnp.zeros((num_episodes, steps_in_episode), dtype=jnp.int32),
                 jnp.zeros((num_episodes, steps_in_episode, 13)),
                 jnp.zeros((num_episodes, steps_in_episode)),
                 jnp.zeros((num_episodes, steps_in_episode), dtype=jnp.bool_))
        return jax.lax.fori_loop(0, num_episodes, rollout_body, carry)

    jitted = jax.jit(collect)(jax.random.PRNGKey(0))
    jitted[4].block_until_ready()

    # record the key every draw and split receives, with the lines of this file on the stack
    calls = []
    def recording(name, fn):
        def wrapper(key, *a, **k):
            lines = [f.lineno for f in inspect.stack()[1:] if f.filename == __file__]
            calls.append((name, lines, tuple(np.asarray(key).ravel().tolist())))
            return fn(key, *a, **k)
        return wrapper
    _uniform, _choice, _split = jax.random.uniform, jax.random.choice, jax.random.split
    jax.random.uniform = recording("uniform", _uniform)
    jax.random.choice = recording("choice", _choice)
    jax.random.split = recording("split", _split)
    with jax.disable_jit():
        eager = collect(jax.random.PRNGKey(0))
    jax.random.uniform, jax.random.choice, jax.random.split = _uniform, _choice, _split
    assert np.array_equal(eager[4], jitted[4]) and np.array_equal(eager[5], jitted[5])

    def keys_at(name, line):
        return [key for n, lines, key in calls if n == name and lines[0] == line]

    # observed: line 71 and line 72 draw from subkey1, which defender_x was drawn from
    assert keys_at("uniform", 71) == keys_at("uniform", 70) == keys_at("uniform", 72)
    # observed: line 75 and line 76 draw from subkey2, which attacker_x was drawn from: the attacker's
    # x, y and heading are one uniform number rescaled
    assert keys_at("uniform", 75) == keys_at("uniform", 74) == keys_at("uniform", 76)
    start = env._reset(jax.random.PRNGKey(3))[0]['attacker']
    u = np.array([(start[0] + 3) / 6, (start[1] - 2) / 1, start[2] / (2 * np.pi)])
    assert np.allclose(u, u[0], atol=1e-5), u

    # observed: line 226 draws the attacker's action from the rng_step that the defender's
    # action was drawn from (both through select_action's choice)
    defender_keys = [key for n, lines, key in calls if n == "choice" and lines[1] == 223]
    attacker_keys = [key for n, lines, key in calls if n == "choice" and lines[1] == 226]
    assert len(defender_keys) == num_episodes * steps_in_episode
    assert defender_keys == attacker_keys
    # observed: line 221 splits the rng_step that the step before drew both actions from (all
    # its splits but the very first: an episode's rng_episode is, through line 284's repeated
    # split, the first rng_step of the episode before)
    step_splits = [key for n, lines, key in calls if n == "split" and lines[0] == 221]
    assert sum(k in defender_keys for k in step_splits) == num_episodes * steps_in_episode - 1
    # observed: line 284 splits the subkey that rollout already split into rng_reset and
    # rng_episode in the episode before, so the two splits give the same keys
    episode_splits = keys_at("split", 266)
    body_splits = keys_at("split", 284)
    assert body_splits[1:] == episode_splits[:-1], (body_splits, episode_splits)
    print("key reuse confirmed")
