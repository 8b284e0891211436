# source: https://github.com/danmackinlay/lambda_hat/blob/22f9d1746327f12d57d912cf43d0907caacc4910/llc/experiments.py
# observed on jax 0.10.2 CPU: train_erm is called once per sweep point and seed (run_experiment); each call jits a fresh local `step`, so three seeds with identical shapes compile `step` three times
# gap: per-call-recompile
# observed: line 42 jit(step) is compiled again on every train_erm call (1 backend compile for seed 1 and for seed 2, same shapes)
# (added: imports; stand-ins for the repository's make_loss_fns (llc/losses.py) and Config (llc/config.py): a one-layer MSE loss
#  over ravelled params and a small dataclass; a __main__ block that runs train_erm for three seeds of one sweep point and counts compilations)
from dataclasses import dataclass

import jax
import jax.numpy as jnp
from jax import random, jit, value_and_grad
from jax.flatten_util import ravel_pytree
import optax


@dataclass
class Config:  # stand-in for llc/config.py
    in_dim: int = 4
    out_dim: int = 1
    seed: int = 0


def make_loss_fns(unravel, cfg, X, Y):  # stand-in for llc/losses.py: full-batch and minibatch MSE
    def loss_full(theta):
        p = unravel(theta)
        return jnp.mean((X @ p["w"] + p["b"] - Y) ** 2)

    def loss_minibatch(theta, xb, yb):
        p = unravel(theta)
        return jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2)

    return loss_full, loss_minibatch


def train_erm(w_init_pytree, cfg: Config, X, Y, steps=2000, lr=1e-2):
    """Train to empirical risk minimizer using new flexible architecture"""
    theta, unravel = ravel_pytree(w_init_pytree)
    loss_full, _ = make_loss_fns(unravel, cfg, X, Y)
    opt = optax.adam(lr)
    opt_state = opt.init(theta)

    @jit  # expect: JIT301
    def step(theta, opt_state):
        loss, g = value_and_grad(loss_full)(theta)
        updates, opt_state = opt.update(g, opt_state, theta)
        theta = optax.apply_updates(theta, updates)
        return theta, opt_state, loss

    for _ in range(steps):
        theta, opt_state, _ = step(theta, opt_state)

    return theta, unravel  # θ⋆, unravel tied to θ⋆


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)

    base = Config()
    for seed in range(3):  # run_sweep: one sweep value, n_seeds=3, same shapes every time
        cfg = Config(seed=seed)
        key = random.PRNGKey(cfg.seed)
        kx, ky, kw = random.split(key, 3)
        X = random.normal(kx, (64, cfg.in_dim))
        Y = random.normal(ky, (64, cfg.out_dim))
        w0 = {"w": 0.1 * random.normal(kw, (cfg.in_dim, cfg.out_dim)), "b": jnp.zeros((cfg.out_dim,))}
        before = len(compiles)
        train_erm(w0, cfg, X, Y, steps=20)
        print(f"seed {seed}: {len(compiles) - before} compilations")
        if seed > 0:
            # a step function jitted once and fed X, Y as arguments would compile nothing here
            assert len(compiles) - before >= 1
