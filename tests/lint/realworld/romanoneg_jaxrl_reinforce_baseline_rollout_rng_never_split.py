# source: https://github.com/romanoneg/JaxRL/blob/4087536e07cc5f97f2ea76588839d2c125642852/RLbook/REINFORCE_baseline.py
#   (a learner's REINFORCE-with-baseline on gymnax CartPole: a jitted, vmapped lax.scan rollout
#   of 64 environments, flax TrainStates for the policy and the state-value net, an epoch loop)
# observed on jax 0.10.2 CPU: train hands the same `rng` to rollout at every epoch and never
#   splits it, so every epoch resets the 64 environments to the same start states and steps them
#   with the same keys: the initial observations of epochs 0, 1 and 2 are identical, although
#   the policy has been updated in between.
#   Changed: the module-level training call train(rng, ..., 5000, 500) moved into the __main__
#   block with 3 epochs of 30 steps. Added: stand-ins for distrax.Categorical (sample(seed=),
#   log_prob) and for gymnax.make("CartPole-v1") (gymnax's reset(key, params) /
#   step(key, state, action, params) with auto-reset, num_actions, observation_space), since
#   distrax and gymnax are not installed; the __main__ block, which records rollout's outputs.
# gap: other
import jax
from jax import lax, random, numpy as jnp
import flax
from flax import linen as nn
import optax
from flax.training.train_state import TrainState
from functools import partial

import types
from flax import struct


class _Categorical:  # stand-in for distrax.Categorical
	def __init__(self, logits):
		self.logits = logits

	def sample(self, seed):
		return jax.random.categorical(seed, self.logits)

	def log_prob(self, value):
		logp = jax.nn.log_softmax(self.logits)
		return jnp.take_along_axis(logp, value[..., None].astype(jnp.int32), axis=-1)[..., 0]


distrax = types.SimpleNamespace(Categorical=_Categorical)


@struct.dataclass
class EnvParams:
	gravity: float = 9.8
	force_mag: float = 10.0
	tau: float = 0.02
	max_steps_in_episode: int = 500


@struct.dataclass
class EnvState:
	x: jnp.ndarray
	x_dot: jnp.ndarray
	theta: jnp.ndarray
	theta_dot: jnp.ndarray
	time: jnp.ndarray


class _CartPole:  # stand-in for gymnax's CartPole-v1, same interface, simplified dynamics
	num_actions = 2

	def observation_space(self, params):
		return types.SimpleNamespace(shape=(4,))

	def get_obs(self, state):
		return jnp.array([state.x, state.x_dot, state.theta, state.theta_dot])

	def reset_env(self, key, params):
		init = jax.random.uniform(key, minval=-0.05, maxval=0.05, shape=(4,))
		state = EnvState(init[0], init[1], init[2], init[3], jnp.array(0))
		return self.get_obs(state), state

	def step_env(self, key, state, action, params):
		force = params.force_mag * action - params.force_mag * (1 - action)
		theta_acc = params.gravity * jnp.sin(state.theta) - 0.1 * force * jnp.cos(state.theta)
		new = EnvState(
			state.x + params.tau * state.x_dot,
			state.x_dot + params.tau * 0.1 * force,
			state.theta + params.tau * state.theta_dot,
			state.theta_dot + params.tau * theta_acc,
			state.time + 1,
		)
		done = (jnp.abs(new.theta) > 0.2095) | (jnp.abs(new.x) > 2.4) | (new.time >= params.max_steps_in_episode)
		return self.get_obs(new), new, jnp.array(1.0), done, {}

	def reset(self, key, params):
		return self.reset_env(key, params)

	def step(self, key, state, action, params):
		# gymnax's Environment.step: step, then auto-reset finished episodes
		key, key_reset = jax.random.split(key)
		obs_st, state_st, reward, done, info = self.step_env(key, state, action, params)
		obs_re, state_re = self.reset_env(key_reset, params)
		state = jax.tree_util.tree_map(lambda x, y: jax.lax.select(done, x, y), state_re, state_st)
		obs = jax.lax.select(done, obs_re, obs_st)
		return obs, state, reward, done, info


gymnax = types.SimpleNamespace(make=lambda name: (_CartPole(), EnvParams()))

# --------------------- policy definition + step function -----------------

class policy(nn.Module):
	action_dim: int
	layer_num: int
	layer_size: int

	@nn.compact
	def __call__(self, inputs):
		x = inputs 
		x = nn.relu(nn.Dense(self.layer_size)(x))
		for i in range(self.layer_num):
			x = nn.relu(nn.Dense(self.layer_size)(x))
		x = nn.Dense(self.action_dim)(x)
		return distrax.Categorical(logits=x)

def init_policy(key, action_dim, obs_shape, layer_num, layer_size):

	model = policy(action_dim, layer_num, layer_size)
	model_params = model.init(key, jnp.zeros(obs_shape))

	schedule_fn = optax.linear_schedule(
		init_value=0.001, 
		end_value=0.0005, 
		transition_steps=3000
	)

	tx = optax.adam(schedule_fn)

	train_state = TrainState.create(
					apply_fn=model.apply, 
					params=model_params, 
					tx=tx
				)

	return train_state

@jax.jit
def step_policy(policy_ts, obs, actions, delta):

	def policy_loss(theta, obs, actions, delta):
		pi = policy_ts.apply_fn(theta, obs)
		log_probs = pi.log_prob(actions)
		return -jnp.sum(log_probs * delta)

	loss_value, grads = jax.value_and_grad(policy_loss,allow_int=True)(
		policy_ts.params, obs, actions, delta
	)
	policy_ts = policy_ts.apply_gradients(grads=grads)
	return loss_value, policy_ts

# ---------------- state_value network definition + step function ------------

class state_value(nn.Module):
	layer_num: int
	layer_size: int

	@nn.compact
	def __call__(self, inputs):
		x = inputs 
		x = nn.relu(nn.Dense(self.layer_size)(x))
		for i in range(self.layer_num):
			x = nn.relu(nn.Dense(self.layer_size)(x))
		x = nn.Dense(1)(x)
		return x

def init_state_value(key, obs_shape, layer_num, layer_size):

	model = state_value(layer_num, layer_size)
	model_params = model.init(key, jnp.zeros(obs_shape))

	tx = optax.adam(learning_rate=0.1)

	train_state = TrainState.create(
					apply_fn=model.apply, 
					params=model_params, 
					tx=tx
				)

	return train_state

@partial(jax.jit, static_argnums=4)
def step_state_value(state_value_ts, obs, G, delta, mse):

	def book_v_loss(w, obs, G, delta):
		v = jnp.squeeze(state_value_ts.apply_fn(state_value_ts.params, obs))
		return jnp.mean(v * delta)

	def mse_v_loss(w, obs, G, delta):
		v = jnp.squeeze(state_value_ts.apply_fn(w, obs))
		return jnp.mean(optax.squared_error(v, G))

	if mse:
		grad_fn = jax.grad(mse_v_loss,allow_int=True)
	else:
		grad_fn = jax.grad(book_v_loss,allow_int=True)

	grads = grad_fn(state_value_ts.params, obs, G, delta)
	state_value_ts = state_value_ts.apply_gradients(grads=grads)
	return state_value_ts

# -------------------------------discounted return + env -------------------------------

@jax.jit
def discounted_returns(rewards, done):

	def cumsum_with_discount(carry, xs):
		new_total_discount =  xs[1] * (0.99 * carry) + xs[0]
		return new_total_discount, new_total_discount 

	carry, returns = jax.lax.scan(cumsum_with_discount, 
									0, 
									[rewards,  (~done).astype(jnp.float32)], 
									reverse=True)
	return returns

@partial(jax.jit, static_argnums=[3,4])
def rollout(rng_input, train_state, env_params, steps_in_episode, num_p=32):
    """Rollout a jitted gymnax episode with lax.scan."""
    # from the gymnax getting started guide, with some changes
    # Reset the environment
    rng_reset, rng_episode = jax.random.split(rng_input)
    reset_rng = jax.random.split(rng_reset, num_p)
    # CHANGED HERE TO ADD VMAP - batch the environment reset
    obs, state = jax.vmap(env.reset, in_axes=(0,None))(reset_rng, env_params)

    def policy_step(state_input, tmp):
        """lax.scan compatible step transition in jax env."""
        obs, state, train_state, rng = state_input
        rng, rng_step, rng_net = jax.random.split(rng, 3)
        logit = train_state.apply_fn(train_state.params, obs)
        action = logit.sample(seed=rng_net)
        rng_step = jax.random.split(rng_step, num_p)
        # CHANGED HERE TO ADD VMAP - batch the environment step, returns batched data
        next_obs, next_state, reward, done, _ = jax.vmap(env.step, in_axes=(0,0,0,None))(
            rng_step, state, action, env_params
        )
        carry = [next_obs, next_state, train_state, rng]
        return carry, [obs, action, reward, next_obs, done]

    # Scan over episode step loop
    _, scan_out = jax.lax.scan(
        policy_step,
        [obs, state, train_state, rng_episode],
        (),
        steps_in_episode
    )
    # Return masked sum of rewards accumulated by agent in episode
    obs, action, reward, next_obs, done = scan_out
    return obs, action, reward, next_obs, done

# -------------- REINFORCE with Baseline (episodic), for estimating pi_θ ≈ pi_* ------------

def train(rng, policy_ts, state_value_ts, env_params, EPOCHS, steps_per_episode=500):

	# stats reporting 
	reported_reward, reporting_interval = 0, 100

	# Input: a differentiable policy parameterization pi(a|s, θ) = policy_ts
	# Input: a differentiable state-value function parameterization v(s,w) = state_value_ts

	# loop (almost) forever:
	for e in range(EPOCHS):
		# Generate an episode S0,A0,R1, . . . ,ST−1,AT−1,RT , following pi(·|·, θ)
		# S = obs, A = actions, R = rewards, and done is a mask for episode ends
		# code is in .utils, and is batched with num_p across processes on GPU
		obs, actions, rewards, _, done = rollout(
			rng, policy_ts, env_params, steps_per_episode, num_p=64  # expect: JIT502
		)

		# Loop for each step of the episode t = 0, 1, . . . ,T − 1:
		# update is batched for faster and better
		G = jax.vmap(discounted_returns, in_axes=1)(rewards, done).T
		delta = G - jnp.squeeze(state_value_ts.apply_fn(state_value_ts.params, obs))
		state_value_ts = step_state_value(state_value_ts, obs, G, delta, mse=True)
		loss_value, policy_ts = step_policy(policy_ts, obs, actions, delta)


		# stats reporting
		reported_reward += jnp.sum(rewards) / jnp.sum(done.astype(jnp.float32)) 

		if e % reporting_interval == 0: 
			print(f"Epoch: {e}, Average reward = {reported_reward / reporting_interval}")
			reported_reward = 0 

	print(f"Epoch: {e}, Average reward = {reported_reward / reporting_interval}")
	return policy_ts, state_value_ts

#------------------------------------------------------------------------------------------

env, env_params = gymnax.make("CartPole-v1")

num_actions = env.num_actions
num_obs = env.observation_space(env_params).shape

rng = random.PRNGKey(491495711086)
key_policy, key_state_value, rng = random.split(rng, 3)

policy_ts = init_policy(key_policy, num_actions, num_obs, 1, 16)
state_value_ts = init_state_value(key_state_value, num_obs, 1, 16)

if __name__ == "__main__":
	rollouts = []
	_rollout = rollout

	def rollout(*args, **kwargs):  # records what train's rollout calls return
		out = _rollout(*args, **kwargs)
		rollouts.append(out)
		return out

	policy_ts, state_value_ts = train(rng, policy_ts, state_value_ts, env_params, 3, 30)
	first_obs = [out[0][0] for out in rollouts]
	# observed: line 267 passes the same rng to rollout at every epoch: all three epochs
	# start their 64 environments from the same states
	assert len(first_obs) == 3
	assert bool(jnp.all(first_obs[0] == first_obs[1])) and bool(jnp.all(first_obs[0] == first_obs[2]))
	assert first_obs[0].shape == (64, 4) and bool(jnp.std(first_obs[0][:, 0]) > 0)
	print("initial observations equal across epochs")
