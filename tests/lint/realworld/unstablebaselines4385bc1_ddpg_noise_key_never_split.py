# source: https://github.com/mmcaulif/unstable-baselines/blob/4385bc17e38a5c2dbddd8cc66318539e55bccb07/Algorithms/DDPG_testing.py
# observed on jax 0.10.2 CPU: see the observed comment; noisy_action draws with the module-level rng, which is never split, so every step gets the same exploration noise
# gap: stale-state-attributes
# added: dm-haiku and gym (LunarLanderContinuous-v2, Box2D) are not installed here, so a small stand-in for hk (transform, without_apply_rng, Sequential, Linear,
#   data_structures.to_immutable_dict) and a stand-in env with the same observation/action spaces replace them; jax.tree_multimap (removed) is spelled
#   jax.tree_util.tree_map; the 300000-step training loop is moved into __main__ and cut to 20 steps (the replay updates start at step 128 and are not reached)
import jax
import jax.nn
import jax.numpy as jnp
import numpy as np
from jax.lax import stop_gradient
from collections import deque
from typing import NamedTuple
import optax
import random
import os
from functools import partial

from types import SimpleNamespace


class hk:  # stand-in for the parts of dm-haiku used here (haiku is not installed)
    _frame = None

    class Linear:
        def __init__(self, output_size):
            f = hk._frame
            self.name = "linear" if f["n"] == 0 else f"linear_{f['n']}"
            f["n"] += 1
            self.output_size = output_size

        def __call__(self, x):
            f = hk._frame
            if f["init"]:
                k = jax.random.fold_in(f["rng"], len(f["params"]))
                w = jax.random.truncated_normal(k, -2., 2., (x.shape[-1], self.output_size)) / np.sqrt(x.shape[-1])
                f["params"][self.name] = {"w": w, "b": jnp.zeros((self.output_size,))}
            p = f["params"][self.name]
            return x @ p["w"] + p["b"]

    class Sequential:
        def __init__(self, layers):
            self.layers = layers

        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    @staticmethod
    def transform(f):
        def run(params, rng, init, args):
            hk._frame = dict(params=params, rng=rng, init=init, n=0)
            try:
                out = f(*args)
                return hk._frame["params"] if init else out
            finally:
                hk._frame = None
        return SimpleNamespace(init=lambda rng, *a: run({}, rng, True, a),
                               apply=lambda params, rng, *a: run(params, rng, False, a))

    @staticmethod
    def without_apply_rng(t):
        return SimpleNamespace(init=t.init, apply=lambda params, *a: t.apply(params, None, *a))

    data_structures = SimpleNamespace(to_immutable_dict=lambda d: {k: dict(v) for k, v in d.items()})


class _Box:  # stand-in for gym.spaces.Box
    def __init__(self, low, high, shape):
        self.low, self.high, self.shape = np.full(shape, low, np.float32), np.full(shape, high, np.float32), shape


class _LunarLanderContinuousStandIn:  # stand-in for gym.make('LunarLanderContinuous-v2'): same spaces, random dynamics
    def __init__(self):
        self.observation_space = _Box(-np.inf, np.inf, (8,))
        self.action_space = _Box(-1., 1., (2,))
        self._rs = np.random.RandomState(0)

    def reset(self):
        return self._rs.normal(size=8).astype(np.float32)

    def step(self, a):
        return self._rs.normal(size=8).astype(np.float32), float(-np.sum(np.square(a))), False, {}

    def close(self):
        pass


gym = SimpleNamespace(make=lambda name: _LunarLanderContinuousStandIn())

# tell JAX to use CPU, cpu is faster on small networks
os.environ.setdefault('JAX_PLATFORM_NAME', 'cpu')

BUFFER_SIZE = 1000000
TARGET_UPDATE = 10000
VERBOSE_UPDATE = 1000
EPSILON = 1
TAU = 0.005

class Transition(NamedTuple):
    s: list  # state
    a: int  # action
    r: float  # reward
    s_p: list  # next state
    d: int  # done

@jax.vmap
def noisy_action(a_t):
    noise = (jax.random.normal(rng, shape=a_t.shape) * 0.2).clip(-0.5, 0.5)  # expect: JIT502
    return (a_t + noise).clip(-env.action_space.low[0],env.action_space.high[0])

@jax.jit
def q_loss_fn(Q_s, Q_sp1, r_t, done):
    y = r_t + 0.99 * Q_sp1 * (1 - done)
    return (Q_s - y)

@jax.jit
def critic_loss(q_params, q_params_t, pi_params_t, s_t, a_t, r_t, s_tp1, done):    
    Q_s1, Q_s2 = q_forward.apply(q_params, s_t, a_t)
    a_pi = noisy_action(pi_forward.apply(pi_params_t, s_tp1))
    Q1, Q2 = stop_gradient(q_forward.apply(q_params_t, s_tp1, a_pi))
    Q_sp1 = jnp.minimum(Q1, Q2)
    losses = jax.vmap(q_loss_fn)(Q_s1, Q_sp1, r_t, done) + jax.vmap(q_loss_fn)(Q_s2, Q_sp1, r_t, done)
    return 0.5 * jnp.square(losses).mean()

@jax.jit
def critic_update(q_params, q_params_t, pi_params_t, q_optim_state, batch):
    s_t = jnp.array(batch.s, dtype=jnp.float32)
    a_t = jnp.array(batch.a, dtype=jnp.int32)
    r_t = jnp.array(batch.r, dtype=jnp.float32)
    s_tp1 = jnp.array(batch.s_p, dtype=jnp.float32)
    done = jnp.array(batch.d, dtype=jnp.float32)    #move all this to a replay buffer class

    q_loss, q_grads = jax.value_and_grad(critic_loss)(q_params, q_params_t, pi_params_t, s_t, a_t, r_t, s_tp1, done)
    updates, q_optim_state = q_optimizer.update(q_grads, q_optim_state, q_params)
    q_params = optax.apply_updates(q_params, updates)

    return q_loss, q_params, q_optim_state

@jax.jit
def policy_loss(pi_params, q_params, s_t):
    a_pi = pi_forward.apply(pi_params, s_t)
    pi_loss, _ = jax.vmap(partial(q_forward.apply, q_params))(s_t, a_pi)
    return -jnp.mean(pi_loss)

@jax.jit
def policy_update(pi_params, q_params, pi_optim_state, batch):
    s_t = jnp.array(batch.s, dtype=jnp.float32)

    _, pi_grads = jax.value_and_grad(policy_loss)(pi_params, q_params, s_t)
    updates, pi_optim_state = pi_optimizer.update(pi_grads, pi_optim_state, pi_params)
    pi_params = optax.apply_updates(pi_params, updates)

    return pi_params, pi_optim_state

@hk.transform
def pi(S):
    seq = hk.Sequential([
        hk.Linear(256), jax.nn.relu,
        hk.Linear(256), jax.nn.relu,
        hk.Linear(env.action_space.shape[0]), jax.nn.tanh,
    ])
    a_pi = seq(S) * env.action_space.high[0]
    return a_pi

@hk.transform
def q_val(S, A):
    SA = jnp.concatenate([S, A], axis=1)

    q1_seq = hk.Sequential([
        hk.Linear(256), jax.nn.relu,
        hk.Linear(256), jax.nn.relu,
        hk.Linear(1),
    ])
    q2_seq = hk.Sequential([
        hk.Linear(256), jax.nn.relu,
        hk.Linear(256), jax.nn.relu,
        hk.Linear(1),
    ])
    return q1_seq(SA), q2_seq(SA)

# experience replay:
replay_buffer = deque(maxlen=100000)
env = gym.make('LunarLanderContinuous-v2')

rng = jax.random.PRNGKey(42)
critic_dims = (jnp.zeros((1,env.observation_space.shape[0])), jnp.zeros((1,env.action_space.shape[0])))
#print(*critic_dims)
q_params = q_val.init(rng, *critic_dims)
q_params_t = hk.data_structures.to_immutable_dict(q_params)
q_forward = hk.without_apply_rng(q_val)
q_optimizer = optax.adam(1e-3)
q_optim_state = q_optimizer.init(q_params)

pi_params = pi.init(rng, jnp.ones(env.observation_space.shape[0]))
pi_params_t = hk.data_structures.to_immutable_dict(pi_params)
pi_forward = hk.without_apply_rng(pi)
pi_optimizer = optax.adam(1e-4)
pi_optim_state = pi_optimizer.init(pi_params)

polask_avg = lambda target, params: (1 - TAU) * target + TAU * params

if __name__ == "__main__":
    # record what noisy_action draws at each step of the exploration loop
    draws = []
    _normal = jax.random.normal

    def _recording_normal(key, *args, **kwargs):
        out = _normal(key, *args, **kwargs)
        draws.append(np.asarray(out))
        return out
    jax.random.normal = _recording_normal

    s_t = env.reset()
    avg_r = deque(maxlen=10)
    avg_loss = deque(maxlen=10)
    r_sum = 0

    for i in range(20): #https://stable-baselines.readthedocs.io/en/master/modules/ddpg.html
        a_t = pi_forward.apply(pi_params, s_t)
        a_t = noisy_action(a_t)
        s_tp1, r_t, done, info = env.step(np.array(a_t))
        r_sum += r_t
        if done:
            avg_r.append(r_sum)
            r_sum = 0
            s_t = env.reset()

        replay_buffer.append([s_t, a_t, r_t, s_tp1, done]) 
        s_t = s_tp1    

        if i >= 128:
            batch = Transition(*zip(*random.sample(replay_buffer, k=128)))
            q_loss, q_params, q_optim_state = critic_update(q_params, q_params_t, pi_params_t, q_optim_state, batch)            
            avg_loss.append(q_loss)

            if i % 2 == 0:  #td3 policy update delay
                pi_params, pi_optim_state = policy_update(pi_params, q_params, pi_optim_state, batch)
                q_params_t = jax.tree_util.tree_map(polask_avg, q_params_t, q_params)
                pi_params_t = jax.tree_util.tree_map(polask_avg, pi_params_t, pi_params)

        if i >= 500 and i % 100 == 0:
            print(f'Timesteps: {i} | avg. reward {sum(avg_r)/10} | avg. critic loss: {sum(avg_loss)/10}')   

    env.close()

    jax.random.normal = _normal
    print("noise draws:", [float(d) for d in draws[:5]], "...")
    assert len(draws) == 20 and all(np.array_equal(d, draws[0]) for d in draws)
    # observed: line 110 the same key rng is drawn from at every step: all 20 exploration noise draws are identical
