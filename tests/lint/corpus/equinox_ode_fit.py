"""Fit a neural ODE with equinox and diffrax (equinox/diffrax user style)."""

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr
import optax

SEED = 5678
log_every = 100


class Func(eqx.Module):
    mlp: eqx.nn.MLP

    def __init__(self, data_size, width, depth, *, key):
        self.mlp = eqx.nn.MLP(data_size, data_size, width, depth, activation=jax.nn.softplus, key=key)

    def __call__(self, t, y, args):
        return self.mlp(y)


class NeuralODE(eqx.Module):
    func: Func

    def __init__(self, data_size, width, depth, *, key):
        self.func = Func(data_size, width, depth, key=key)

    def __call__(self, ts, y0):
        sol = diffrax.diffeqsolve(
            diffrax.ODETerm(self.func),
            diffrax.Tsit5(),
            t0=ts[0],
            t1=ts[-1],
            dt0=ts[1] - ts[0],
            y0=y0,
            saveat=diffrax.SaveAt(ts=ts),
        )
        return sol.ys


def get_data(key, n, length):
    ts = jnp.linspace(0, 10, length)
    y0 = jr.uniform(key, (n, 2), minval=-0.6, maxval=1)
    noise = jr.normal(key, (n, length, 2)) * 0.01  # expect: JIT502
    ys = jnp.sin(ts)[None, :, None] * y0[:, None, :] + noise
    return ts, ys


@eqx.filter_value_and_grad
def grad_loss(model, ti, yi):
    y_pred = jax.vmap(model, in_axes=(None, 0))(ti, yi[:, 0])
    return jnp.mean((yi - y_pred) ** 2)


@eqx.filter_jit
def make_step(ti, yi, model, opt_state, optim):
    loss, grads = grad_loss(model, ti, yi)
    updates, opt_state = optim.update(grads, opt_state)
    model = eqx.apply_updates(model, updates)
    return loss, model, opt_state


@eqx.filter_jit
def evaluate(model, ts, ys, length: int):
    ti = ts[:length]
    y_pred = jax.vmap(model, in_axes=(None, 0))(ti, ys[:, 0])
    err = jnp.abs(y_pred - ys[:, :length]).max()
    return err if err < 1.0 else jnp.inf  # expect: JIT101


def main(steps=500, lr=3e-3):
    key = jr.PRNGKey(SEED)
    data_key, model_key = jr.split(key)
    ts, ys = get_data(data_key, 64, 100)
    model = NeuralODE(2, 64, 2, key=model_key)
    optim = optax.adabelief(lr)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))
    for length in (10, 100):
        for step in range(steps):
            loss, model, opt_state = make_step(ts[:length], ys[:, :length], model, opt_state, optim)
            if step % log_every == 0 or step == steps - 1:
                print(f"length {length} step {step} loss {loss}")
        print("max err", evaluate(model, ts, ys, length))
    return model
