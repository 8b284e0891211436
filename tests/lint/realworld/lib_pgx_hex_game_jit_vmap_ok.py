# source: https://github.com/sotetsuk/pgx/blob/079b2d730e3845c25d49d99e0ccf9a374dd04cb9/pgx/_src/games/hex.py
# observed on jax 0.10.2 CPU: Game.step, observe and legal_action_mask run under
#   `jax.jit(jax.vmap(...))` inside a jitted `lax.scan` over 40 random legal moves on a batch
#   of 8 boards: the placement and the swap are chosen with `lax.cond` on the traced action,
#   the stone groups are merged in a `fori_loop`, `_swap` finds the first stone with
#   `jnp.nonzero(..., size=1)`, and `_observe`'s `if color is None` tests a Python default.
#   The whole file is kept verbatim (its license header is shortened to this line).
# gap: other
from functools import partial
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax import Array


FALSE = jnp.bool_(False)
TRUE = jnp.bool_(True)


class GameState(NamedTuple):
    # 0(black), 1(white)
    step_count: Array = jnp.int32(0)
    # 11x11 board
    # [[  0,  1,  2,  ...,  8,  9, 10],
    #  [ 11,  12, 13, ..., 19, 20, 21],
    #  .
    #  .
    #  .
    #  [110, 111, 112, ...,  119, 120]]
    board: Array = jnp.zeros(11 * 11, jnp.int32)  # <0(oppo), 0(empty), 0<(self)
    terminated: Array = FALSE

    @property
    def color(self) -> Array:
        return self.step_count % 2


class Game:
    def __init__(self, size: int = 11):
        self.size = size

    def init(self) -> GameState:
        return GameState()

    def step(self, state: GameState, action: Array) -> GameState:
        return jax.lax.cond(
            action != self.size * self.size,
            lambda: partial(_step, size=self.size)(state, action),
            lambda: partial(_swap, size=self.size)(state),
        )

    def observe(self, state: GameState, color: Optional[Array] = None) -> Array:
        return _observe(state, color, self.size)

    def legal_action_mask(self, state: GameState) -> Array:
        return jnp.append(state.board == 0, state.step_count == 1)

    def is_terminal(self, state: GameState) -> Array:
        return state.terminated

    def rewards(self, state: GameState) -> Array:
        return jax.lax.select(
            state.terminated,
            jnp.float32([1, 1]).at[state.color].set(-1),
            jnp.zeros(2, jnp.float32),
        )


def _is_terminal(state: GameState, action: Array, size: int) -> Array:
    top, bottom = jax.lax.cond(
        state.color == 0,
        lambda: (state.board[::size], state.board[size - 1 :: size]),
        lambda: (state.board[:size], state.board[-size:]),
    )
    target_id = state.board[action]  # target_id != 0
    return (top == target_id).any() & (bottom == target_id).any()


def _step(state: GameState, action: Array, size: int) -> GameState:
    set_place_id = action + 1
    board = state.board.at[action].set(set_place_id)
    neighbour = _neighbour(action, size)

    def merge(i, b):
        adj_pos = neighbour[i]
        return jax.lax.cond(
            (adj_pos >= 0) & (b[adj_pos] > 0),
            lambda: jnp.where(b == b[adj_pos], set_place_id, b),
            lambda: b,
        )

    board = jax.lax.fori_loop(0, 6, merge, board)
    
    state = state._replace(
        step_count=state.step_count + 1,
        board=board * -1,
    )
    return state._replace(terminated=_is_terminal(state, action, size))


def _swap(state: GameState, size: int) -> GameState:
    ix = jnp.nonzero(state.board, size=1)[0]
    row = ix // size
    col = ix % size
    swapped_ix = col * size + row
    set_place_id = swapped_ix + 1
    board = state.board.at[ix].set(0).at[swapped_ix].set(set_place_id)
    return state._replace(
        step_count=state.step_count + 1,
        board=board * -1,
    )


def _observe(state: GameState, color: Optional[Array] = None, size: int = 11) -> Array:
    if color is None:
        color = state.color

    board = jax.lax.select(color == state.color, state.board, -state.board)
    board = board.reshape((size, size))

    my_board = board * 1 > 0
    opp_board = board * -1 > 0
    ones = jnp.ones_like(my_board)
    color = color * ones
    can_swap = (state.step_count == 1) * ones

    return jnp.stack([my_board, opp_board, color, can_swap], 2, dtype=jnp.bool_)


def _neighbour(xy, size):
    """
        (x,y-1)   (x+1,y-1)
    (x-1,y)    (x,y)    (x+1,y)
       (x-1,y+1)   (x,y+1)
    """
    x = xy // size
    y = xy % size
    xs = jnp.array([x, x + 1, x - 1, x + 1, x - 1, x])
    ys = jnp.array([y - 1, y - 1, y, y, y + 1, y + 1])
    on_board = (0 <= xs) & (xs < size) & (0 <= ys) & (ys < size)
    return jnp.where(on_board, xs * size + ys, -1)


if __name__ == "__main__":
    game = Game()
    batch = 8
    step = jax.jit(jax.vmap(game.step))
    observe = jax.jit(jax.vmap(game.observe))
    legal = jax.jit(jax.vmap(game.legal_action_mask))

    @jax.jit
    def play(key):
        state = jax.vmap(lambda _: game.init())(jnp.arange(batch))

        def body(state, k):
            mask = jax.vmap(game.legal_action_mask)(state)
            action = jax.random.categorical(k, jnp.log(mask.astype(jnp.float32)), axis=-1)
            state = jax.vmap(game.step)(state, action)
            return state, jax.vmap(game.is_terminal)(state)

        return jax.lax.scan(body, state, jax.random.split(key, 40))

    state, terminated = play(jax.random.PRNGKey(1))
    assert terminated.shape == (40, batch)
    assert bool(jnp.all(state.step_count == 40))
    assert bool(jnp.all(jnp.sum(state.board != 0, axis=-1) <= 40))

    # the swap: black's first stone at (row 1, col 3) becomes white's at (row 3, col 1)
    state = jax.vmap(lambda _: game.init())(jnp.arange(2))
    state = step(state, jnp.array([1 * 11 + 3, 1 * 11 + 3]))
    assert bool(jnp.all(legal(state)[:, -1]))
    state = step(state, jnp.array([121, 121]))
    assert bool(jnp.all(state.board[:, 3 * 11 + 1] != 0)) and bool(jnp.all(state.board[:, 1 * 11 + 3] == 0))
    assert observe(state).shape == (2, 11, 11, 4)
