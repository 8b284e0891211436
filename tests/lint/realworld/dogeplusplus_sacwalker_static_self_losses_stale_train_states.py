# source: https://github.com/dogeplusplus/sac-walker/blob/23a4a6a1d000c8afe6a1fd3341524ae77d407316/sac/algorithm.py
#   (a user's Soft Actor-Critic in JAX/flax: SAC jits its q_loss and pi_loss methods with a
#   static self and reads the actor-critic's current train states from self.ac / self.ac_targ,
#   which train() replaces after every update; the actor samples its noise from np.random)
# observed on jax 0.10.2 CPU: q_loss and pi_loss are traced once, so the parameters they read
#   from self (the policy's in q_loss, the target critics' in q_loss, the online critics' in
#   pi_loss) are baked in as constants: after those attributes are replaced, the jitted losses
#   return exactly the old value while the same methods run unjitted give a different loss;
#   and MLPActor's np.random.randint seed is drawn once at trace time, so the jitted loss uses
#   the same "random" action noise on every call (two calls equal; unjitted calls differ).
#   Added: models/mlp.py and sac/buffer.py of the same commit (above algorithm.py, its
#   `sys.path.append` and package imports dropped), a stand-in for the gym environment (gym is
#   not installed; `import gym` dropped), and the __main__ block (a short SAC.train run, then
#   the checks); main() (gym.make and 10 epochs of 4000 steps) is left out.
#   Changed: np.bool (removed from NumPy) spelled bool in ReplayBuffer.
# gap: stale-state-attributes

# ---- models/mlp.py (same commit)
import optax
import numpy as np
import jax.numpy as jnp

from jax import random
from flax import linen as nn
from jax.scipy.stats import norm
from flax.training import train_state

from typing import Callable, Sequence


def relu(x):
    return jnp.maximum(0, x)


def softplus(x, beta=1, threshold=20):
    softp = 1.0 / beta * jnp.log(1 + jnp.exp(beta * x))
    return jnp.where(beta * x > threshold, x, softp)


class MLPActor(nn.Module):
    act_dim: int
    hidden_layers: Sequence[int]
    activation_fn: Callable
    act_limit: float
    log_min_std: float = -20
    log_max_std: float = 2

    def setup(self):
        self.layers = [nn.Dense(s) for s in self.hidden_layers]
        self.mu_layer = nn.Dense(self.act_dim)
        self.log_std_layer = nn.Dense(self.act_dim)

    def __call__(self, x, deterministic=False, with_logprob=True):
        for layer in self.layers:
            x = layer(x)
            x = self.activation_fn(x)

        mu = self.mu_layer(x)
        log_std = self.log_std_layer(x)
        log_std = jnp.clip(log_std, self.log_min_std, self.log_max_std)
        std = jnp.exp(log_std)

        prob = mu
        if not deterministic:
            seed = np.random.randint(0, 100000)  # expect: JIT204
            prob += std * random.normal(random.PRNGKey(seed))

        logprob = None
        if with_logprob:
            logprob = jnp.sum(norm.logpdf(prob, mu, std), axis=-1)
            logprob -= 2 * jnp.sum(jnp.log(2) - prob - softplus(-2*prob), axis=-1)
        pi_action = jnp.tanh(prob) * self.act_limit

        return (pi_action, logprob)


class QFunction(nn.Module):
    hidden_layers: Sequence[int]
    activation_fn: Callable

    def setup(self):
        self.layers = [nn.Dense(s) for s in self.hidden_layers + (1,)]

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i != len(self.layers) - 1:
                x = self.activation_fn(x)
        return x


class ActorCritic(object):
    def __init__(self, obs_dim, act_dim, hidden_layers, activation_fn, act_limit, learning_rate, seed):
        self.obs_dim = obs_dim
        self.act_dim = act_dim
        self.pi = MLPActor(
            act_dim, hidden_layers, activation_fn, act_limit
        )
        self.q1 = QFunction(hidden_layers, activation_fn)
        self.q2 = QFunction(hidden_layers, activation_fn)

        seed1, seed2 = random.split(seed)
        self.q_state = self.create_q_train_state(learning_rate, seed1)
        self.pi_state = self.create_pi_train_state(learning_rate, seed2)

    def create_q_train_state(self, learning_rate, seed):
        seed1, seed2, seed3 = random.split(seed, 3)
        init_tensor = random.uniform(seed1, (self.obs_dim + self.act_dim,))
        params_q1 = self.q1.init(seed2, init_tensor)
        params_q2 = self.q2.init(seed3, init_tensor)
        tx = optax.adam(learning_rate)

        return train_state.TrainState.create(
            apply_fn=self.q1.apply,
            params={"q1": params_q1, "q2": params_q2},
            tx=tx,
        )

    def create_pi_train_state(self, learning_rate, seed):
        seed1, seed2 = random.split(seed)
        init_tensor = random.uniform(seed1, (self.obs_dim,))
        params_pi = self.pi.init(seed2, init_tensor)
        tx = optax.adam(learning_rate)

        return train_state.TrainState.create(
            apply_fn=self.pi.apply,
            params=params_pi,
            tx=tx,
        )

    def act(self, x, deterministic=False):
        a, _ = self.pi.apply(self.pi_state.params, x, deterministic, False)
        return a


# ---- sac/buffer.py (same commit)
import numpy as np

from random import sample
from dataclasses import dataclass

@dataclass(frozen=True)
class Batch:
    states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_states: np.ndarray
    done: np.ndarray


class ReplayBuffer(object):
    def __init__(self, size, obs_dim, act_dim):
        self.state = np.zeros((size, obs_dim), dtype=np.float32)
        self.actions = np.zeros((size, act_dim), dtype=np.float32)
        self.rewards = np.zeros(size, dtype=np.float32)
        self.next_state = np.zeros((size, obs_dim), dtype=np.float32)
        self.done = np.zeros(size, dtype=bool)

        self.ptr = 0
        self.size = size

    def store(self, obs, act, rew, next_obs, done):
        assert self.ptr < self.size
        self.state[self.ptr] = obs
        self.actions[self.ptr] = act
        self.rewards[self.ptr] = rew
        self.next_state[self.ptr] = next_obs
        self.done[self.ptr] = done
        self.ptr += 1

    def sample(self, batch_size):
        assert self.ptr >= batch_size, "Number of samples less than batch size."
        assert self.ptr <= self.size, "Number of samples must be at most buffer size."

        idx = sample(range(self.ptr), batch_size)

        return Batch(
            self.state[idx],
            self.actions[idx],
            self.rewards[idx],
            self.next_state[idx],
            self.done[idx]
        )


# ---- sac/algorithm.py
import sys
import jax
import tqdm
import jax.numpy as jnp

from copy import deepcopy
from jax import jit, random
from functools import partial
from dataclasses import dataclass
from flax import traverse_util
from flax.core import freeze, unfreeze



def flat_params(params):
    params = unfreeze(params)
    flat = {
        "/".join(k): v for k,
        v in traverse_util.flatten_dict(params).items()
    }
    return flat


def unflat_params(flat_params):
    unflat = traverse_util.unflatten_dict({
        tuple(k.split('/')): v
        for k, v in flat_params.items()
    })
    unflat = freeze(unflat)

    return unflat

@dataclass(frozen=True)
class TrainingParameters:
    epochs: int
    steps_per_epoch: int
    batch_size: int
    start_steps: int
    update_after: int
    update_every: int
    learning_rate: float
    alpha: float
    gamma: float
    polyak: float
    buffer_size: int = int(1e6)
    max_ep_len: int = 4000


class SAC(object):
    def __init__(self, env, ac, params: TrainingParameters):
        self.env = env
        self.ac = ac
        self.ac_targ = deepcopy(ac)
        self.buffer = ReplayBuffer(
            params.buffer_size,
            env.observation_space.shape[0],
            env.action_space.shape[0],
        )
        self.params = params


    @partial(jit, static_argnums=(0,))
    def q_loss(self, q_params, s, a, r, s2, d):

        sa = jnp.concatenate([s, a], axis=-1)
        q1 = self.ac.q1.apply(q_params["q1"], sa)
        q2 = self.ac.q2.apply(q_params["q2"], sa)

        a2, logp_ac = self.ac.pi.apply(self.ac.pi_state.params, s2)  # expect: JIT201
        sa2 = jnp.concatenate([s2, a2], axis=-1)

        q1_target = self.ac_targ.q1.apply(self.ac_targ.q_state.params["q1"], sa2)  # expect: JIT201
        q2_target = self.ac_targ.q2.apply(self.ac_targ.q_state.params["q2"], sa2)  # expect: JIT201
        q_target = jnp.where(q1_target < q2_target, q1_target, q2_target)

        backup = r + self.params.gamma * (1 - d) * (
            q_target - self.params.alpha * logp_ac
        )

        loss_q1 = jnp.mean((q1 - backup) ** 2)
        loss_q2 = jnp.mean((q2 - backup) ** 2)
        loss_q = loss_q1 + loss_q2
        return loss_q

    @partial(jit, static_argnums=(0,))
    def pi_loss(self, pi_params, s, s2):
        pi, logp_pi = self.ac.pi.apply(pi_params, s2)
        sa2 = jnp.concatenate([s, pi], axis=-1)
        q1 = self.ac.q1.apply(self.ac.q_state.params["q1"], sa2)  # expect: JIT201
        q2 = self.ac.q2.apply(self.ac.q_state.params["q2"], sa2)  # expect: JIT201

        q_pi = jnp.min(jnp.concatenate([q1, q2], axis=-1), axis=-1)
        loss_pi = jnp.mean(self.params.alpha * logp_pi - q_pi)

        return loss_pi

    def update_q(self, q_state, samples):
        loss_q, grad_q = jax.value_and_grad(self.q_loss)(
            q_state.params,
            samples.states,
            samples.actions,
            samples.rewards,
            samples.next_states,
            samples.done,
        )
        q_state = q_state.apply_gradients(grads=grad_q)

        return (q_state, loss_q)

    def update_pi(self, pi_state, samples):
        loss_pi, grad_pi = jax.value_and_grad(self.pi_loss)(
            pi_state.params,
            samples.states,
            samples.next_states,
        )
        pi_state = pi_state.apply_gradients(grads=grad_pi)

        return (pi_state, loss_pi)

    def update_targets(self):

        targ_params = self.ac_targ.q_state.params
        source_params = self.ac.q_state.params

        targ_flat = flat_params(targ_params)
        source_flat = flat_params(source_params)
        polyak = self.params.polyak

        for k in targ_flat.keys():
            targ_flat[k] = polyak * targ_flat[k] + (1 - polyak) * source_flat[k]

        new_targ_params = unflat_params(targ_flat)
        self.ac_targ.q_state = self.ac_targ.q_state.replace(params=new_targ_params)

    def train(self):
        state = self.env.reset()
        params = self.params

        step = 0

        for e in range(params.epochs):
            ep_ret = 0
            ep_len = 0

            pbar = tqdm.tqdm(
                range(params.steps_per_epoch),
                desc=f"Epoch {e+1:>4}",
                bar_format="{l_bar}{bar:10}{r_bar}{bar:-10b}"
            )
            cumulative_metrics = {
                "q_loss": 0,
                "pi_loss": 0,
            }
            for i in pbar:
                if step < params.start_steps:
                    action = self.env.action_space.sample()
                else:
                    action = self.ac.act(state)

                next_state, reward, done, _ = self.env.step(action)
                # self.env.render()
                ep_len += 1
                ep_ret += reward

                self.buffer.store(state, action, reward, next_state, done)
                state = next_state

                # TODO: Implement environment reset and epoch termination
                timeout = ep_len == params.max_ep_len
                terminal = done or timeout
                epoch_ended = i % params.steps_per_epoch == params.steps_per_epoch - 1

                if terminal or epoch_ended:
                    state = self.env.reset()
                    ep_ret = 0
                    ep_len = 0

                if step > params.update_after and step % params.update_every == 0:
                    for _ in range(params.update_every):
                        samples = self.buffer.sample(params.batch_size)

                        self.ac.q_state, q_loss = self.update_q(self.ac.q_state, samples)
                        self.ac.pi_state, pi_loss = self.update_pi(self.ac.pi_state, samples)
                        self.update_targets()

                        cumulative_metrics["pi_loss"] += pi_loss
                        cumulative_metrics["q_loss"] += q_loss

                        metrics = {
                            "Episode Length": ep_len,
                            "Cumulative Reward": ep_ret,
                            "Q Loss": f"{cumulative_metrics['q_loss'] / (i + 1):.4g}",
                            "PI Loss": f"{cumulative_metrics['pi_loss'] / (i + 1):.4g}",
                        }
                        pbar.set_postfix(metrics)

                step += 1
            state = self.env.reset()
            ep_ret = 0
            ep_len = 0


class Trainer(object):
    def __init__(self):
        self._env = None
        self._ac = None
        self._training_parameters = None

    @property
    def env(self):
        return self._env

    @env.setter
    def env(self, env):
        self._env = env

    @property
    def training_parameters(self):
        return self._training_parameters

    @training_parameters.setter
    def training_parameters(self, params: TrainingParameters):
        self._training_parameters = params

    def create_actor_critic(self, hidden_sizes, activation_fn, act_limit, seed):
        assert self.env is not None, "Environment must be set before networks."
        assert self._training_parameters is not None, "No training parameters provided."

        obs_dim = self.env.observation_space.shape[0]
        act_dim = self.env.action_space.shape[0]
        learning_rate = self._training_parameters.learning_rate
        self._ac = ActorCritic(obs_dim,
            act_dim,
            hidden_sizes,
            activation_fn,
            act_limit,
            learning_rate,
            seed
        )

    def train(self):
        assert self._env is not None, "Environment must be set before training."
        assert self._ac is not None, "Actor must be set before training."
        assert self._training_parameters is not None, "No training parameters provided."

        sac = SAC(self._env, self._ac, self._training_parameters)
        sac.train()


class _Box:  # stand-in for a gym Box space
    def __init__(self, shape):
        self.shape = shape

    def sample(self):
        return np.random.uniform(-1.0, 1.0, size=self.shape).astype(np.float32)


class _PointEnv:  # stand-in for gym.make("MountainCarContinuous-v0"): same interface
    observation_space = _Box((3,))
    action_space = _Box((1,))

    def reset(self):
        self.pos = np.random.uniform(-0.5, 0.5, size=3).astype(np.float32)
        self.t = 0
        return self.pos

    def step(self, action):
        self.pos = (self.pos + 0.1 * np.asarray(action).sum()).astype(np.float32)
        self.t += 1
        return self.pos, float(-np.abs(self.pos).sum()), self.t >= 15, {}

    def render(self):
        pass


if __name__ == "__main__":
    np.random.seed(0)
    trainer = Trainer()
    trainer.env = _PointEnv()
    trainer.training_parameters = TrainingParameters(
        epochs=1, steps_per_epoch=40, batch_size=8, start_steps=20, update_after=10,
        update_every=5, learning_rate=1e-3, alpha=0.2, gamma=0.99, polyak=0.99,
        buffer_size=1000,
    )
    trainer.create_actor_critic((16, 16), relu, 10, random.PRNGKey(1337))
    # what Trainer.train does, keeping the SAC object
    sac = SAC(trainer._env, trainer._ac, trainer._training_parameters)
    sac.train()

    b = sac.buffer.sample(8)
    q_args = (b.states, b.actions, b.rewards, b.next_states, b.done)
    fresh_q_loss = SAC.q_loss.__wrapped__  # the same method, not jitted
    fresh_pi_loss = SAC.pi_loss.__wrapped__
    shift = lambda p: jax.tree_util.tree_map(lambda x: x - 10.0, p)

    def q_losses():
        np.random.seed(1)
        fresh = fresh_q_loss(sac, sac.ac.q_state.params, *q_args)
        return float(sac.q_loss(sac.ac.q_state.params, *q_args)), float(fresh)

    def pi_losses():
        np.random.seed(1)
        fresh = fresh_pi_loss(sac, sac.ac.pi_state.params, b.states, b.next_states)
        return float(sac.pi_loss(sac.ac.pi_state.params, b.states, b.next_states)), float(fresh)

    jit0, fresh0 = q_losses()
    old = sac.ac.pi_state
    sac.ac.pi_state = old.replace(params=shift(old.params))
    jit1, fresh1 = q_losses()
    sac.ac.pi_state = old
    # observed: line 255 reads self.ac.pi_state at trace time: with new policy parameters the
    # jitted q_loss returns the old value, the unjitted method a new one
    assert jit1 == jit0 and fresh1 != fresh0

    old = sac.ac_targ.q_state
    sac.ac_targ.q_state = old.replace(params={"q1": shift(old.params["q1"]), "q2": old.params["q2"]})
    jit1, fresh1 = q_losses()
    sac.ac_targ.q_state = old
    # observed: line 258 reads the target q1 parameters at trace time (update_targets replaces
    # them after every update): the jitted q_loss does not see new ones, the unjitted one does
    assert jit1 == jit0 and fresh1 != fresh0

    sac.ac_targ.q_state = old.replace(params={"q1": old.params["q1"], "q2": shift(old.params["q2"])})
    jit1, fresh1 = q_losses()
    sac.ac_targ.q_state = old
    # observed: line 259 likewise for the target q2 parameters
    assert jit1 == jit0 and fresh1 != fresh0

    pjit0, pfresh0 = pi_losses()
    old = sac.ac.q_state
    sac.ac.q_state = old.replace(params={"q1": shift(old.params["q1"]), "q2": old.params["q2"]})
    pjit1, pfresh1 = pi_losses()
    sac.ac.q_state = old
    # observed: line 275 reads the online q1 parameters at trace time: pi_loss keeps using the
    # critic of its first call while train() updates self.ac.q_state
    assert pjit1 == pjit0 and pfresh1 != pfresh0

    sac.ac.q_state = old.replace(params={"q1": old.params["q1"], "q2": shift(old.params["q2"])})
    pjit1, pfresh1 = pi_losses()
    sac.ac.q_state = old
    # observed: line 276 likewise for the online q2 parameters
    assert pjit1 == pjit0 and pfresh1 != pfresh0

    # observed: line 65 draws the noise seed from np.random while tracing: the jitted loss
    # repeats the same noise on every call, the unjitted method draws new noise each call
    j_a = float(sac.pi_loss(sac.ac.pi_state.params, b.states, b.next_states))
    j_b = float(sac.pi_loss(sac.ac.pi_state.params, b.states, b.next_states))
    u_a = float(fresh_pi_loss(sac, sac.ac.pi_state.params, b.states, b.next_states))
    u_b = float(fresh_pi_loss(sac, sac.ac.pi_state.params, b.states, b.next_states))
    assert j_a == j_b and u_a != u_b
    print("stale q_loss/pi_loss attributes and frozen noise observed")
