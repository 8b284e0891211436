# source: https://github.com/Jesperoka/robust_rl/blob/0adde8045a4e5b88499275694a58278a695540f5/algorithms/utils.py
# observed on jax 0.10.2 CPU: runs clean; the actors' and critics' running input normalization
#   (Welford statistics carried through lax.scan, `where(first, ...)` on the traced `first`
#   flag) and the learning-rate schedule handed to optax give the same values under jax.jit as
#   eagerly, and one compiled update serves every batch of the same shape.
# gap: exemption-vs-JAX
# (kept as written: RunningStats, welford_update, batch_welford_update,
#  update_and_normalize_input, normalize_input and linear_schedule; trimmed: the distributions,
#  the flax actor/critic modules and the initializers of the same file, which need distrax and
#  tensorflow_probability. Added: the `__main__` block, which jits the normalization the way
#  the actors' `__call__` runs it inside the jitted training step and gives linear_schedule to
#  optax with `partial`, as make_train does.)
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax import Array
from jax.lax import scan
from jax.numpy import where
from flax.linen import standardize


class RunningStats(NamedTuple):
    mean_obs:       Array
    welford_S:      Array
    running_count:  int # must start at 1 if only updating during training (and not rollouts)
    first:          int 

# Welford algorithm for running empirical population variance
def welford_update(carry: tuple[Array, Array, int], x: Array) -> tuple[tuple[Array, Array, int], None]:
    M_old, S_old, count = carry
    count += 1
    M_new = M_old + (x - M_old) / count
    S_new = S_old + (x - M_old) * (x - M_new)

    return (M_new, S_new, count), None 

def batch_welford_update(init_carry: tuple[Array, Array, int], x_batch: Array) -> tuple[Array, Array, int]:
    (M_new, S_new, count), _ = scan(welford_update, init_carry, x_batch)
    return (M_new, S_new, count)


# Input normalization using Welford algorithm for running statistics
def update_and_normalize_input(obs: Array, statistics: RunningStats) -> tuple[Array, RunningStats]:
    mean_obs, welford_S, running_count, first = statistics 
    stacked_obs = obs.reshape(-1, obs.shape[-1]) # merge batch and env dimensions (we assume observation dimension is flat and last)
    mean_obs, welford_S, running_count = batch_welford_update((mean_obs, welford_S, running_count), stacked_obs)
    var = welford_S / (running_count - 1 + first)
    first = 0

    return standardize(x=obs, mean=mean_obs, variance=var), RunningStats(mean_obs, welford_S, running_count, first)

def normalize_input(obs: Array, statistics: RunningStats) -> Array:
    mean_obs, welford_S, running_count, first = statistics 
    var = welford_S / (running_count - 1 + first)

    return where(first, obs, standardize(x=obs, mean=mean_obs, variance=var)) # type: ignore[assignment]


def linear_schedule(
        num_minibatches: int, update_epochs: int, num_updates: int, learning_rate: float,  # partial() these in make_train()
        count: int                                                                          # remaining arg after partial()
        ) -> float:

    return learning_rate*(1.0 - (count // (num_minibatches * update_epochs)) / float(num_updates))


if __name__ == "__main__":
    compiles = []

    def on_event(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_event)

    obs_size, num_envs = 6, 4
    stats = RunningStats(mean_obs=jnp.zeros(obs_size), welford_S=jnp.zeros(obs_size), running_count=1, first=1)
    jit_update = jax.jit(update_and_normalize_input)
    jit_normalize = jax.jit(normalize_input)

    eager_stats = stats
    key = jax.random.PRNGKey(0)
    before = None
    for step in range(4):
        key, sub = jax.random.split(key)
        obs = 3.0 + 2.0 * jax.random.normal(sub, (1, num_envs, obs_size))
        normed, stats = jit_update(obs, stats)
        eager_normed, eager_stats = update_and_normalize_input(obs, eager_stats)
        assert jnp.allclose(normed, eager_normed, atol=1e-5)
        assert jnp.allclose(stats.mean_obs, eager_stats.mean_obs, atol=1e-5)
        assert int(stats.running_count) == 1 + num_envs * (step + 1)
        if step == 0:
            before = len(compiles)
    # the first call traced with Python ints in the stats, later ones with arrays: one more
    # compile at most, then none
    assert len(compiles) - before <= 1

    # before any update (first == 1) normalize_input passes observations through unchanged
    fresh = RunningStats(mean_obs=jnp.zeros(obs_size), welford_S=jnp.zeros(obs_size), running_count=1, first=1)
    assert jnp.allclose(jit_normalize(obs, fresh), obs)
    assert jnp.allclose(jit_normalize(obs, stats), normalize_input(obs, eager_stats), atol=1e-5)

    # linear_schedule as an optax schedule: called with the traced step count inside jit
    schedule = partial(linear_schedule, 4, 2, 10, 3e-4)
    tx = optax.adam(schedule)
    params = {"w": jnp.ones(3)}
    opt_state = tx.init(params)

    @jax.jit
    def update(params, opt_state):
        grads = {"w": jnp.ones(3)}
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state

    lrs = []
    for _ in range(16):
        p_old = params["w"][0]
        params, opt_state = update(params, opt_state)
        lrs.append(float(p_old - params["w"][0]))
    assert abs(lrs[0] - 3e-4) < 1e-6 and abs(lrs[8] - 3e-4 * 0.9) < 1e-6, lrs
    print("running stats and schedule agree with eager:", stats.mean_obs[:3], lrs[0], lrs[8])
