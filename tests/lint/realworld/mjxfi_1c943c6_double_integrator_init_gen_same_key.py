# source: https://github.com/mistry-lab/mjx_fitted_iteration/blob/1c943c68260cc2e424f341d310bd4e53849d47d1/diff_sim/context/di.py
# observed on jax 0.10.2 CPU: init_gen draws the initial positions and the initial velocities
#   of the double integrator from the same key, so every sampled velocity is exactly 0.7 times
#   its position (line 124): the batch of start states lies on one line through the origin
#   instead of filling the box [-1, 1] x [-0.7, 0.7]. The runner (diff_sim/runner.py) splits a
#   fresh xkey per epoch and passes it to init_gen, which consumes it twice. The task module
#   is kept as written; added are a minimal stand-in for `mujoco.mjx` (Model, Data, make_data,
#   step, full_m of a sliding cart; mujoco is not installed) and for the repository's Network
#   base class, Config/Callbacks/Context (loss_func and gen_model left out), and the __main__
#   block, which also runs the task's policy in a jitted lax.scan rollout.
# gap: other
from abc import ABC, abstractmethod
from types import SimpleNamespace

import jax
from jax import numpy as jnp
import equinox as eqx
from flax import struct


# --- minimal stand-in for mujoco.mjx: one slide joint driven by a motor (doubleintegrator.xml) ---
@struct.dataclass
class _MjxModel:
    opt: SimpleNamespace = struct.field(pytree_node=False)
    nq: int = struct.field(pytree_node=False, default=1)
    nv: int = struct.field(pytree_node=False, default=1)
    nu: int = struct.field(pytree_node=False, default=1)
    actuator_trnid: jnp.ndarray = struct.field(pytree_node=False, default=None)


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
    qvel = dx.qvel + mx.opt.timestep * 10.0 * jnp.clip(dx.ctrl, -1.0, 1.0)
    return dx.replace(qpos=dx.qpos + mx.opt.timestep * qvel, qvel=qvel, time=dx.time + mx.opt.timestep)


mjx = SimpleNamespace(Model=_MjxModel, Data=_MjxData, make_data=_make_data, step=_step,
                      full_m=lambda mx, dx: jnp.eye(mx.nv))


# --- stand-ins for diff_sim.nn.base_nn.Network and diff_sim.context.meta_context ---
class Network(eqx.Module, ABC):
    @abstractmethod
    def __call__(self, x, t):
        pass


Config = Callbacks = SimpleNamespace


class Context:
    def __init__(self, cfg, cbs):
        self.cfg = cfg
        self.cbs = cbs


# --- diff_sim/context/di.py ---
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
    # under this policy the cost function is quite important the cost that works is:
    # Q = diag([0, 0]) or Q = diag([10, 0.01]) and R = diag([0.01]) and QF = diag([10, 0.01])
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

def init_gen(total_batch: int, key: jnp.ndarray) -> jnp.ndarray:
    xinits = jnp.concatenate([
        jax.random.uniform(key, (total_batch, 1), minval=-1, maxval=1),
        jax.random.uniform(key, (total_batch, 1), minval=-.7, maxval=.7)  # expect: JIT502
    ], axis=1).squeeze()

    return xinits

def state_encoder(mx: mjx.Model, dx: mjx.Data) -> jnp.ndarray:
    return jnp.concatenate([dx.qpos, dx.qvel], axis=0)

def state_decoder(x: jnp.ndarray) -> jnp.ndarray:
    return x

def gen_network(seed: int) -> Network:
    key = jax.random.PRNGKey(seed)
    return Policy([3, 64, 64, 1], key)

def is_terminal(mx: mjx.Model, dx: mjx.Data) -> jnp.ndarray:
    return jnp.array([jnp.any(jnp.abs(dx.qpos[0]) > 3.0)])


ctx = Context(
    Config(
        lr=4e-3,
        num_gpu=1,
        seed=0,
        nsteps=100,
        epochs=1000,
        batch=2,
        samples=1,
        eval=10,
        dt=0.01,
        mx=mjx.Model(opt=SimpleNamespace(timestep=0.01), actuator_trnid=jnp.array([[0, -1]])),
    ),
    Callbacks(
        run_cost=run_cost,
        terminal_cost=terminal_cost,
        control_cost=control_cost,
        init_gen=init_gen,
        state_encoder=state_encoder,
        state_decoder=state_decoder,
        gen_network=gen_network,
        controller=policy,
        is_terminal=is_terminal
    )
)


if __name__ == "__main__":
    key = jax.random.PRNGKey(ctx.cfg.seed)
    key, xkey, tkey, user_key = jax.random.split(key, num=4)
    x_inits = ctx.cbs.init_gen(64, xkey)
    # observed: line 124 draws the velocities from the key of the positions: v == 0.7 * q
    assert jnp.allclose(x_inits[:, 1], 0.7 * x_inits[:, 0], atol=1e-5)
    print("corrcoef(q, v) =", jnp.corrcoef(x_inits[:, 0], x_inits[:, 1])[0, 1])

    net = ctx.cbs.gen_network(ctx.cfg.seed)
    mx = ctx.cfg.mx

    @eqx.filter_jit
    def rollout_cost(net, x, key):
        dx = mjx.make_data(mx)
        dx = dx.replace(qpos=x[:1], qvel=x[1:])

        def step(carry, k):
            dx, c = carry
            dx, u = ctx.cbs.controller(net, mx, dx, k)
            c = c + ctx.cfg.dt * (run_cost(mx, dx) + control_cost(mx, dx))
            return (mjx.step(mx, dx), c), None

        (dx, c), _ = jax.lax.scan(step, (dx, 0.0), jax.random.split(key, ctx.cfg.nsteps))
        return c + terminal_cost(mx, dx)

    print(jax.vmap(rollout_cost, in_axes=(None, 0, None))(net, x_inits, user_key))
