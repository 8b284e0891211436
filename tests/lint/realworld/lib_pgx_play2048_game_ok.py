# source: https://github.com/sotetsuk/pgx/blob/da29e7e7e6aa0dafc4943810f0ee76a25ee70cb3/pgx/play2048.py
# observed on jax 0.10.2 CPU: runs clean under jit: the traced action picks the board's
#   rotation through `jax.lax.switch`, every merge and slide of a row is a `jax.lax.cond`
#   on traced tiles, the new tile's position is drawn with `jax.random.choice(..., p=...)`
#   over the empty squares, and `can_slide |= ...` combines traced booleans without
#   branching; a game of random legal moves keeps the tile sum growing by exactly the new
#   2 or 4 each move, and the jitted step compiles once. Kept as pgx wrote them: _init,
#   _step, _legal_action_mask, _observe, _add_random_num, _slide_and_merge, _merge,
#   _slide_left and _can_slide_left, and the module constants. Added: pgx's dataclass,
#   core.State and types are not installed, so State is a flax struct dataclass with the
#   fields of pgx's 2048 State (the Play2048 Env class, which wraps these functions in
#   pgx's core.Env, and the debug `show` are left out); a __main__ block plays a game.
# gap: exemption-vs-JAX
from typing import Optional

import jax
import jax.numpy as jnp
from flax import struct

Array = jax.Array  # pgx._src.types.Array
PRNGKey = jax.Array  # pgx._src.types.PRNGKey

FALSE = jnp.bool_(False)
TRUE = jnp.bool_(True)
ZERO = jnp.int32(0)


@struct.dataclass
class State:
    # stand-in for pgx's 2048 State (pgx dataclass over core.State): same fields and
    # defaults, given through default_factory as Python's dataclasses require
    current_player: Array = struct.field(default_factory=lambda: jnp.int32(0))
    observation: Array = struct.field(default_factory=lambda: jnp.zeros(16, dtype=jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.float32([0.0]))
    terminated: Array = struct.field(default_factory=lambda: FALSE)
    truncated: Array = struct.field(default_factory=lambda: FALSE)
    legal_action_mask: Array = struct.field(default_factory=lambda: jnp.ones(4, dtype=jnp.bool_))
    _step_count: Array = struct.field(default_factory=lambda: jnp.int32(0))
    _board: Array = struct.field(default_factory=lambda: jnp.zeros(16, jnp.int32))


def _init(rng: PRNGKey) -> State:
    rng1, rng2 = jax.random.split(rng)
    board = _add_random_num(jnp.zeros((4, 4), jnp.int32), rng1)
    board = _add_random_num(board, rng2)
    return State(
        _board=board.ravel(),
        legal_action_mask=_legal_action_mask(board.reshape((4, 4))),
    )  # type:ignore


def _step(state: State, action, key):
    """action: 0(left), 1(up), 2(right), 3(down)"""
    board_2d = state._board.reshape((4, 4))
    board_2d = jax.lax.switch(
        action,
        [
            lambda: board_2d,
            lambda: jnp.rot90(board_2d, 1),
            lambda: jnp.rot90(board_2d, 2),
            lambda: jnp.rot90(board_2d, 3),
        ],
    )
    board_2d, reward = jax.vmap(_slide_and_merge)(board_2d)
    board_2d = jax.lax.switch(
        action,
        [
            lambda: board_2d,
            lambda: jnp.rot90(board_2d, -1),
            lambda: jnp.rot90(board_2d, -2),
            lambda: jnp.rot90(board_2d, -3),
        ],
    )

    board_2d = _add_random_num(board_2d, key)

    legal_action_mask = _legal_action_mask(board_2d)
    return state.replace(  # type:ignore
        _board=board_2d.ravel(),
        rewards=jnp.float32([reward.sum()]),
        legal_action_mask=legal_action_mask,
        terminated=~legal_action_mask.any(),
    )


def _legal_action_mask(board_2d):
    return jax.vmap(_can_slide_left)(
        jnp.array(
            [
                board_2d,
                jnp.rot90(board_2d, 1),
                jnp.rot90(board_2d, 2),
                jnp.rot90(board_2d, 3),
            ]
        )
    )


def _observe(state: State, player_id) -> Array:
    obs = jnp.zeros((16, 31), dtype=jnp.bool_)
    obs = jax.lax.fori_loop(0, 16, lambda i, obs: obs.at[i, state._board[i]].set(TRUE), obs)
    return obs.reshape((4, 4, 31))


def _add_random_num(board_2d, key):
    """Add 2 or 4 to the empty space on the board.
    2 appears 90% of the time, and 4 appears 10% of the time.
    cf. https://github.com/gabrielecirulli/2048/blob/master/js/game_manager.js#L71
    """
    key, sub_key = jax.random.split(key)
    pos = jax.random.choice(key, jnp.arange(16), p=(board_2d.ravel() == 0))
    set_num = jax.random.choice(sub_key, jnp.int32([1, 2]), p=jnp.array([0.9, 0.1]))
    board_2d = board_2d.at[pos // 4, pos % 4].set(set_num)
    return board_2d


def _slide_and_merge(line):
    """[2 2 2 2] -> [4 4 0 0]"""
    line = _slide_left(line)
    line, reward = _merge(line)
    line = _slide_left(line)
    return line, reward


def _merge(line):
    """[2 2 2 2] -> [4 0 4 0]"""
    line, reward = jax.lax.cond(
        (line[0] != 0) & (line[0] == line[1]),
        lambda: (
            line.at[0].set(line[0] + 1).at[1].set(ZERO),
            2 ** (line[0] + 1),
        ),
        lambda: (line, ZERO),
    )
    line, reward = jax.lax.cond(
        (line[1] != 0) & (line[1] == line[2]),
        lambda: (
            line.at[1].set(line[1] + 1).at[2].set(ZERO),
            reward + 2 ** (line[1] + 1),
        ),
        lambda: (line, reward),
    )
    line, reward = jax.lax.cond(
        (line[2] != 0) & (line[2] == line[3]),
        lambda: (
            line.at[2].set(line[2] + 1).at[3].set(ZERO),
            reward + 2 ** (line[2] + 1),
        ),
        lambda: (line, reward),
    )
    return line, reward


def _slide_left(line):
    """[0 2 0 2] -> [2 2 0 0]"""
    line = jax.lax.cond(
        (line[2] == 0),
        lambda: line.at[2:].set(jnp.roll(line[2:], -1)),
        lambda: line,
    )
    line = jax.lax.cond(
        (line[1] == 0),
        lambda: line.at[1:].set(jnp.roll(line[1:], -1)),
        lambda: line,
    )
    line = jax.lax.cond(
        (line[0] == 0),
        lambda: jnp.roll(line, -1),
        lambda: line,
    )
    return line


def _can_slide_left(board_2d):
    def _can_slide(line):
        """Judge if it can be moved to the left."""
        can_slide = (line[0] == 0) & (line[1] > 0)
        can_slide |= (line[1] == 0) & (line[2] > 0)
        can_slide |= (line[2] == 0) & (line[3] > 0)
        can_slide |= (line[0] > 0) & (line[0] == line[1])
        can_slide |= (line[1] > 0) & (line[1] == line[2])
        can_slide |= (line[2] > 0) & (line[2] == line[3])
        can_slide &= ~(line == 0).all()
        return can_slide

    can_slide = jax.vmap(_can_slide)(board_2d).any()
    return can_slide




if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    line, reward = jax.jit(_slide_and_merge)(jnp.int32([1, 1, 1, 1]))
    assert line.tolist() == [2, 2, 0, 0] and int(reward) == 8
    line, reward = jax.jit(_slide_and_merge)(jnp.int32([0, 2, 0, 2]))
    assert line.tolist() == [3, 0, 0, 0] and int(reward) == 8

    init = jax.jit(_init)
    step = jax.jit(_step)
    observe = jax.jit(_observe)

    def tile_sum(state):
        return int(jnp.where(state._board > 0, 2 ** state._board, 0).sum())

    key = jax.random.PRNGKey(0)
    key, init_key = jax.random.split(key)
    state = init(init_key)
    assert int((state._board > 0).sum()) == 2
    moves = 0
    while not bool(state.terminated) and moves < 60:
        key, action_key, step_key = jax.random.split(key, 3)
        action = jax.random.choice(action_key, jnp.arange(4), p=state.legal_action_mask)
        before = tile_sum(state)
        state = step(state, action, step_key)
        added = tile_sum(state) - before
        assert added in (2, 4), added
        obs = observe(state, state.current_player)
        assert obs.shape == (4, 4, 31) and int(obs.sum()) == 16
        moves += 1
    assert moves > 10
    assert compiles.count("jit(_step)") == 1, compiles
