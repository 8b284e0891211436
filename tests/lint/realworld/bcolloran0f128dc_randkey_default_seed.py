# source: https://github.com/bcolloran/deep_rl_experiments/blob/0f128dc81bdc180a9c58c5b91c33a168d0a091ce/jax/jax_nn_utils.py (randKey), jax/damped_spring_noise.py, jax/pendulum_utils.py and the TD(0) data-collection cell of jax/scratch_pend_val_est.py at the same commit
# observed on jax 0.10.2 CPU: randKey's default seed numpy.random.rand(1) is evaluated once at import, so every randKey() returns the same PRNG key and every episode of the training loop is driven by the identical damped-spring action noise (before this commit randKey() drew a fresh numpy seed on each call).
# observed: line 100 every call dampedSpringNoise(episode_len, key=randKey()) in the episode loop gets the same key and returns the same noise sequence
# gap: other
# (the three repo modules are inlined; jax.numpy is imported as np as in the repo, numpy.random.rand as rand;
#  the cell's data-collection loop is wrapped in collect_epochs() and keeps its epoch memories; the reward-standardizer,
#  TD(0) update and plotting parts of the cell are left out; sizes made small;
#  int(100000 * seed) -> int(100000 * seed[0]) because NumPy 2 no longer converts a 1-element array with int())
import numpy
from numpy.random import rand

import jax
from jax import grad, jit, value_and_grad
import jax.numpy as np
from jax import random, lax
from functools import partial
from collections import namedtuple


# ---- jax_nn_utils.py ----
def randKey(seed=numpy.random.rand(1)):
    return random.PRNGKey(int(100000 * seed[0]))


# ---- damped_spring_noise.py ----
@jit
def dampedSpringNoiseStep(state, __ARG_NOT_USED=None):
    x, v, sigma, theta, phi, key = state
    key, subkey = random.split(key)
    v += -theta * x - phi * v + sigma * random.normal(subkey)
    x += v
    return (x, v, sigma, theta, phi, key), x


@partial(jit, static_argnums=(0,))
def dampedSpringNoise(T, sigma=0.5, theta=0.05, phi=0.01, key=random.PRNGKey(0)):
    state = (0.0, 0.0, sigma, theta, phi, key)
    _, noise = lax.scan(dampedSpringNoiseStep, state, None, length=T)
    return noise


# ---- pendulum_utils.py ----
PendulumParams = namedtuple("Params", ["g", "m", "l", "dt", "max_torque", "max_speed"])

default_pendulum_params = PendulumParams(10, 1, 1, 0.05, 2, 8)


@jit
def angle_normalize(x):
    return ((x + np.pi) % (2 * np.pi)) - np.pi


@jit
def controlledPendulumStep_scan(state_and_params, u):
    th, thdot, params = state_and_params

    u = np.clip(u, -params.max_torque, params.max_torque)

    thdot = np.clip(
        thdot
        + (
            -3.0 * params.g / (2 * params.l) * np.sin(th + np.pi)
            + 3.0 / (params.m * params.l ** 2) * u
        )
        * params.dt,
        -params.max_speed,
        params.max_speed,
    )
    th = th + thdot * params.dt

    cost = angle_normalize(th) ** 2 + 0.1 * thdot ** 2 + 0.001 * (u ** 2)
    # newthdot = newthdot, -max_speed, max_speed)

    return (th, thdot, params), np.array((th, thdot, cost))


@jit
def pendulumTraj_scan(th0, thdot0, uVect, params=default_pendulum_params):
    state = (th0, thdot0, params)
    _, traj = jax.lax.scan(controlledPendulumStep_scan, state, uVect)
    return traj


# ---- scratch_pend_val_est.py: data collection for semi-gradient TD(0) ----
def collect_epochs(num_epochs, episode_len, samples_per_epoch, params=default_pendulum_params):
    epochs = []
    for i in range(num_epochs):
        epoch_memory = numpy.zeros((0, 5))

        e = 0
        while epoch_memory.shape[0] < samples_per_epoch:
            e += 1
            theta0 = np.pi * (2 * rand() - 1)
            thetadot0 = 8 * (2 * rand() - 0.5)
            traj = numpy.array(
                pendulumTraj_scan(
                    theta0,
                    thetadot0,
                    np.clip(
                        dampedSpringNoise(episode_len, key=randKey()),  # expect: JIT502
                        -params.max_torque,
                        params.max_torque,
                    ),
                    params,
                )
            )
            traj[:, 0] = angle_normalize(traj[:, 0])
            R = traj[:-1, 2].reshape(-1, 1)
            S = traj[:-1, 0:2]
            S_next = traj[1:, 0:2]

            episode = numpy.hstack([S, S_next, R])
            epoch_memory = numpy.vstack([epoch_memory, episode])
        epochs.append(epoch_memory)
    return epochs


if __name__ == "__main__":
    epochs = collect_epochs(num_epochs=2, episode_len=30, samples_per_epoch=60)
    print("collected", [m.shape for m in epochs])

    # harness: the keys (and hence action-noise sequences) handed out by randKey() never change
    k1, k2 = randKey(), randKey()  # tolerate: JIT502
    print("randKey() twice:", k1, k2)
    assert bool(np.all(k1 == k2))
    n1 = dampedSpringNoise(30, key=randKey())  # tolerate: JIT502
    n2 = dampedSpringNoise(30, key=randKey())  # tolerate: JIT502
    assert bool(np.all(n1 == n2))
    print("observed: every episode gets the identical action-noise sequence")
