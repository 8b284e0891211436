# source: https://github.com/sotetsuk/pgx/blob/079b2d730e3845c25d49d99e0ccf9a374dd04cb9/pgx/experimental/wrappers.py
# observed on jax 0.10.2 CPU: runs clean: auto_reset's wrapped step, vmapped over 16 games
#   and driven by a jitted lax.scan with a fresh key per step, resets every game that
#   terminates (the step counter restarts, the terminal reward is kept for that step) and
#   compiles once. wrappers.py is kept as it is; pgx.core.State, Array and PRNGKey are
#   stand-ins (a flax.struct dataclass with the fields the wrapper reads), as are the
#   game's step_fn/init_fn (a countdown whose length init draws from its key) and the
#   driver.
# gap: exemption-vs-JAX
from typing import Optional

import jax
import jax.numpy as jnp

Array = jax.Array
PRNGKey = jax.Array
from flax import struct


@struct.dataclass
class State:
    # stand-in for pgx.core.State (the fields auto_reset reads and a game counter)
    current_player: Array
    rewards: Array
    terminated: Array
    truncated: Array
    _step_count: Array
    _remaining: Array

FALSE = jnp.bool_(False)


def auto_reset(step_fn, init_fn):
    """Auto reset wrapper.

    We have a concern about the final state before staging this wrapper:

    When auto-reset happens, the termianl (or truncated) state/observation is
    replaced by initial state/observation, It's ok if it's termination.
    However, when truncation happens, value of truncated state/observation
    might be used by agents (by bootstrap). So it must be stored somewhere.
    For example,

    https://github.com/Farama-Foundation/Gymnasium/blob/main/gymnasium/wrappers/autoreset.py#L59

    However, currently, truncation does *NOT* actually happens because
    all of Pgx environments (games) are finite-horizon and
    terminates within reasonable # of steps.
    Note that chess, shogi, and Go have `max_termination_steps` as AlphaZero.
    So, this implementation is enough (so far).

    2. Performance
    """

    def wrapped_step_fn(state: State, action: Array, key: Optional[PRNGKey] = None):
        assert key is not None, (
            "v2.0.0 changes the signature of auto reset. Please specify PRNGKey at the third argument:\n\n"
            "  * <  v2.0.0: step_fn(state, action)\n"
            "  * >= v2.0.0: step_fn(state, action, key)\n\n"
            "Note that codes under pgx.experimental are subject to change without notice."
        )

        key1, key2 = jax.random.split(key)
        state = jax.lax.cond(
            (state.terminated | state.truncated),
            lambda: state.replace(  # type: ignore
                terminated=FALSE,
                truncated=FALSE,
                rewards=jnp.zeros_like(state.rewards),
            ),
            lambda: state,
        )
        state = step_fn(state, action, key1)
        state = jax.lax.cond(
            (state.terminated | state.truncated),
            # state is replaced by initial state,
            # but preserve (terminated, truncated, reward)
            lambda: init_fn(key2).replace(  # type: ignore
                terminated=state.terminated,
                truncated=state.truncated,
                rewards=state.rewards,
            ),
            lambda: state,
        )
        return state

    return wrapped_step_fn


def init_fn(key: PRNGKey) -> State:
    # stand-in game: a countdown of 1 to 5 moves drawn from the key
    return State(
        current_player=jnp.int32(0),
        rewards=jnp.zeros(2),
        terminated=FALSE,
        truncated=FALSE,
        _step_count=jnp.int32(0),
        _remaining=jax.random.randint(key, (), 1, 6),
    )


def step_fn(state: State, action: Array, key: Optional[PRNGKey] = None) -> State:
    del key
    remaining = state._remaining - 1
    done = remaining <= 0
    return state.replace(
        current_player=1 - state.current_player,
        rewards=jnp.where(done, jnp.float32([1.0, -1.0]) * (action + 1), jnp.zeros(2)),
        terminated=done,
        _step_count=state._step_count + 1,
        _remaining=remaining,
    )


if __name__ == "__main__":
    batch_size = 16
    step = jax.vmap(auto_reset(step_fn, init_fn))

    @jax.jit
    def rollout(key):
        key, subkey = jax.random.split(key)
        state = jax.vmap(init_fn)(jax.random.split(subkey, batch_size))

        def body(state, key):
            key_act, key_step = jax.random.split(key)
            action = jax.random.randint(key_act, (batch_size,), 0, 2)
            state = step(state, action, jax.random.split(key_step, batch_size))
            return state, (state.terminated, state._step_count, state.rewards)

        return jax.lax.scan(body, state, jax.random.split(key, 20))

    state, (terminated, step_count, rewards) = rollout(jax.random.PRNGKey(0))
    state, _ = rollout(jax.random.PRNGKey(1))
    assert rollout._cache_size() == 1
    assert bool(terminated.any())
    # a game that terminated was reset: its step counter restarts at 0 ...
    assert bool((step_count[terminated] == 0).all())
    # ... while the terminal rewards are kept for that step and zero otherwise
    assert bool((jnp.abs(rewards[terminated]).sum(axis=-1) > 0).all())
    assert bool((rewards[~terminated] == 0).all())
