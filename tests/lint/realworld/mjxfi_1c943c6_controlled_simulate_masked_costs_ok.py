# source: https://github.com/mistry-lab/mjx_fitted_iteration/blob/1c943c68260cc2e424f341d310bd4e53849d47d1/diff_sim/simulate.py
# observed on jax 0.10.2 CPU: the fix of commit 1c943c6 ("[fix] jit compilation error with
#   jnp.where") appends a False flag for the terminal step and multiplies the costs by
#   logical_not(terminated), a fixed-shape mask, so controlled_simulate (eqx.filter_jit around a
#   vmapped lax.scan rollout of a noisy policy) traces and runs, and a second call with new
#   initial states reuses the compiled rollout. simulate.py at the fix commit is kept as written;
#   added are a minimal stand-in for `mujoco.mjx` (a sliding cart: Model, Data, make_data, step,
#   full_m; mujoco is not installed), the repository's Config and Context
#   (diff_sim/context/meta_context.py, Context kept, Config without the gen_model field) and
#   Network (diff_sim/nn/base_nn.py, without make_step), a small Callbacks stand-in, the
#   double-integrator task callbacks of diff_sim/context/di.py (policy, costs, state_encoder,
#   is_terminal, Policy), and the __main__ block.
# gap: other
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.tree_util
from flax import struct


# --- minimal stand-in for mujoco.mjx: one slide joint driven by a motor (doubleintegrator.xml) ---
@struct.dataclass
class _MjxModel:
    opt: SimpleNamespace = struct.field(pytree_node=False)
    nq: int = struct.field(pytree_node=False, default=1)
    nv: int = struct.field(pytree_node=False, default=1)
    nu: int = struct.field(pytree_node=False, default=1)
    actuator_trnid: jnp.ndarray = struct.field(pytree_node=False, default=None)
    gear: float = struct.field(pytree_node=False, default=10.0)


@struct.dataclass
class _MjxData:
    qpos: jnp.ndarray
    qvel: jnp.ndarray
    ctrl: jnp.ndarray
    time: jnp.ndarray


def _make_data(mx):
    return _MjxData(qpos=jnp.zeros(mx.nq), qvel=jnp.zeros(mx.nv), ctrl=jnp.zeros(mx.nu),
                    time=jnp.zeros(()))


def _step(mx, dx):
    dt = mx.opt.timestep
    qvel = dx.qvel + dt * mx.gear * jnp.clip(dx.ctrl, -1.0, 1.0)
    qpos = dx.qpos + dt * qvel
    return dx.replace(qpos=qpos, qvel=qvel, time=dx.time + dt)


def _full_m(mx, dx):
    return jnp.eye(mx.nv)


mjx = SimpleNamespace(Model=_MjxModel, Data=_MjxData, make_data=_make_data, step=_step,
                      full_m=_full_m)


# --- diff_sim/nn/base_nn.py (make_step left out) ---
class Network(eqx.Module, ABC):
    """
    Abstract base class for policies. Users should inherit from this class
    and implement the __call__ method.
    """

    @abstractmethod
    def __call__(self, x, t):
        pass


# --- diff_sim/context/meta_context.py (Config without gen_model; Callbacks is a stand-in) ---
@partial(jax.tree_util.register_dataclass,
         data_fields=['mx'],
         meta_fields=['lr', 'num_gpu', 'seed', 'nsteps', 'epochs', 'batch', 'samples', 'eval', 'dt'])
@dataclass(frozen=True)
class Config:
    lr: float     # learning rate
    num_gpu: int  # number of devices
    seed: int     # random seed
    nsteps: int   # simulation steps
    epochs: int   # training epochs
    batch: int    # batch size (number simulations)
    samples: int  # number of simulations per initial state
    eval: int     # visualization and saving checkpoints frequency
    dt: float     # simulation time step
    mx: mjx.Model # MJX model


class Callbacks(SimpleNamespace):
    pass


class Context:
    def __init__(self, cfg: Config, cbs: Callbacks):
        self.cfg = cfg
        self.cbs = cbs
        assert jnp.isclose(cfg.dt, cfg.mx.opt.timestep, atol=1e-6)
        assert cfg.num_gpu <= jax.device_count()
        assert (cfg.batch * cfg.samples) % cfg.num_gpu == 0


# --- diff_sim/simulate.py ---
@eqx.filter_jit
def controlled_simulate(x_inits:jnp.ndarray, ctx: Context, net: Network, key: jnp.ndarray):
    mx = ctx.cfg.mx

    def cost_fn(mx:mjx.Model , dx:mjx.Data):
        ucost = ctx.cbs.control_cost(mx,dx) * ctx.cfg.dt
        xcst = ctx.cbs.run_cost(mx,dx) * ctx.cfg.dt
        return jnp.array([ucost + xcst])

    def set_init(x):
        dx = mjx.make_data(mx)
        # TODO: Decode x_init here.
        qpos = dx.qpos.at[:].set(x[:mx.nq])
        qvel = dx.qvel.at[:].set(x[mx.nq:])
        dx = dx.replace(qpos=qpos, qvel=qvel)
        return mjx.step(mx, dx)

    # TODO: append a flag with x that signifies wether you should terminate or not
    def step(carry, _):
        dx, key = carry
        key, subkey = jax.random.split(key)
        dx, u = ctx.cbs.controller(net, mx, dx, subkey)
        cost = cost_fn(mx, dx)
        dx = mjx.step(mx, dx) # Dynamics function
        terminated = ctx.cbs.is_terminal(mx, dx)
        x = ctx.cbs.state_encoder(mx,dx)
        t = jnp.expand_dims(dx.time, axis=0)
        return (dx, key), jnp.concatenate([x, dx.ctrl, cost, t, terminated], axis=0)

    @jax.vmap
    def rollout(x_init):
        dx = set_init(x_init)
        (dx,_), res = jax.lax.scan(step, (dx, key), None, length=ctx.cfg.nsteps-1)
        x, u, costs, ts, terminated = res[...,:-mx.nu-3], res[...,-mx.nu-3:-3], res[...,-3], res[...,-2], res[...,-1]
        x = jnp.concatenate([x_init.reshape(1,-1), x], axis=0)
        t = jnp.concatenate([jnp.array([ctx.cfg.dt]), ts], axis=0)
        tcost = ctx.cbs.terminal_cost(mx,dx) # Terminal cost
        costs = jnp.concatenate([costs, tcost.reshape(-1)], axis=0)
        terminated = jnp.concatenate([terminated, jnp.array([False])])
        # From the first terminated index, set the following costs to 0 (included index)
        costs = costs * jnp.logical_not(terminated)        
        return x, u, costs, t #return dx as well return termination indicies as well

    return rollout(x_inits)


# --- diff_sim/context/di.py: the double-integrator task ---
class Policy(Network):
    layers: list
    act: callable

    def __init__(self, dims: list, key):
        keys = jax.random.split(key, len(dims))
        self.layers = [eqx.nn.Linear(
            dims[i], dims[i + 1], key=keys[i], use_bias=True
        ) for i in range(len(dims) - 1)]
        self.act = jax.nn.relu

    def __call__(self, x, t):
        t = t if t.ndim == 1 else t.reshape(1)
        x = jnp.concatenate([x, t], axis=-1)
        for layer in self.layers[:-1]:
            x = self.act(layer(x))
        return self.layers[-1](x).squeeze()


def policy(net: Network, mx: mjx.Model, dx: mjx.Data, policy_key: jnp.ndarray
) -> tuple[mjx.Data, jnp.ndarray]:
    x = state_encoder(mx,dx)
    t = jnp.expand_dims(dx.time, axis=0)
    act_id = mx.actuator_trnid[:, 0]
    M = mjx.full_m(mx, dx)
    invM = jnp.linalg.inv(M)
    dvdx = jax.jacrev(net,0)(x, t)
    G = jnp.vstack([jnp.zeros_like(invM), invM])
    invR = jnp.linalg.inv(jnp.diag(jnp.array([0.01])))
    u = (-1/2 * invR @ G.T[act_id, :] @ dvdx.T).flatten()
    noisy_u = u + 10 * jax.random.normal(policy_key, u.shape)
    dx = dx.replace(ctrl=dx.ctrl.at[:].set(noisy_u))
    return dx, noisy_u

def run_cost(mx: mjx.Model,dx:mjx.Data) -> jnp.ndarray:
    # x^T Q x
    x = state_encoder(mx,dx)
    return  jnp.dot(x.T, jnp.dot(jnp.diag(jnp.array([0, 0])), x))

def terminal_cost(mx: mjx.Model,dx:mjx.Data) -> jnp.ndarray:
    # x^T Q_f x
    x = state_encoder(mx,dx)
    return 10*jnp.dot(x.T, jnp.dot(jnp.diag(jnp.array([10, 0.01])), x))

def control_cost(mx: mjx.Model,dx:mjx.Data) -> jnp.ndarray:
    # u^T R u
    x = dx.ctrl
    return jnp.dot(x.T, jnp.dot(jnp.diag(jnp.array([0.01])), x))

def state_encoder(mx: mjx.Model, dx: mjx.Data) -> jnp.ndarray:
    return jnp.concatenate([dx.qpos, dx.qvel], axis=0)

def is_terminal(mx: mjx.Model, dx: mjx.Data) -> jnp.ndarray:
    return jnp.array([jnp.any(jnp.abs(dx.qpos[0]) > 3.0)])


if __name__ == "__main__":
    mx = mjx.Model(opt=SimpleNamespace(timestep=0.01), actuator_trnid=jnp.array([[0, -1]]))
    ctx = Context(
        Config(lr=4e-3, num_gpu=1, seed=0, nsteps=100, epochs=1000, batch=2, samples=1,
               eval=10, dt=0.01, mx=mx),
        Callbacks(run_cost=run_cost, terminal_cost=terminal_cost, control_cost=control_cost,
                  state_encoder=state_encoder, controller=policy, is_terminal=is_terminal),
    )
    key, net_key, x_key, user_key = jax.random.split(jax.random.PRNGKey(ctx.cfg.seed), 4)
    net = Policy([3, 64, 64, 1], net_key)
    x_inits = jax.random.uniform(x_key, (ctx.cfg.batch * ctx.cfg.samples, 2), minval=-1, maxval=1)
    x, u, costs, t = controlled_simulate(x_inits, ctx, net, user_key)
    assert costs.shape == (ctx.cfg.batch * ctx.cfg.samples, ctx.cfg.nsteps)
    assert bool(jnp.all(jnp.isfinite(costs)))
    x_key, sub = jax.random.split(x_key)  # tolerate: JIT502
    x_inits = jax.random.uniform(sub, (ctx.cfg.batch * ctx.cfg.samples, 2), minval=-1, maxval=1)
    x, u, costs, t = controlled_simulate(x_inits, ctx, net, user_key)
    assert bool(jnp.all(jnp.isfinite(costs)))
    print(costs.sum(axis=1))
