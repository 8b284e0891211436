# source: https://github.com/sotetsuk/pgx/blob/f26e9e33c63ac8e5847c491f3fe89d61be1bd98d/pgx/_src/games/connect_four.py
# observed on jax 0.10.2 CPU: Game.step, observe, legal_action_mask, is_terminal and rewards
#   run clean under jax.jit(jax.vmap(...)) on a batch of two games: the traced column `action`
#   indexes the board and the filled count sets the row through `.at[...]`, the win test is
#   an array reduction and the winner a `lax.select`. Player 0 stacks four discs in column 0
#   of the first game and wins. The module is kept whole (licence header left out); the
#   `__main__` block is added.
# gap: exemption-vs-JAX
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax import Array


class GameState(NamedTuple):
    color: Array = jnp.int32(0)
    # 6x7 board
    # [[ 0,  1,  2,  3,  4,  5,  6],
    #  [ 7,  8,  9, 10, 11, 12, 13],
    #  [14, 15, 16, 17, 18, 19, 20],
    #  [21, 22, 23, 24, 25, 26, 27],
    #  [28, 29, 30, 31, 32, 33, 34],
    #  [35, 36, 37, 38, 39, 40, 41]]
    board: Array = -jnp.ones(42, jnp.int32)  # -1 (empty), 0, 1
    winner: Array = jnp.int32(-1)


class Game:
    def init(self) -> GameState:
        return GameState()

    def step(self, state: GameState, action: Array) -> GameState:
        board2d = state.board.reshape(6, 7)
        num_filled = (board2d[:, action] >= 0).sum()
        board2d = board2d.at[5 - num_filled, action].set(state.color)
        won = ((board2d.flatten()[IDX] == state.color).all(axis=1)).any()
        winner = jax.lax.select(won, state.color, -1)
        return state._replace(  # type: ignore
            color=1 - state.color,
            board=board2d.flatten(),
            winner=winner,
        )

    def observe(self, state: GameState, color: Optional[Array] = None) -> Array:
        def make(turn):
            return state.board.reshape(6, 7) == turn

        turns = jax.lax.select(color == 0, jnp.int32([0, 1]), jnp.int32([1, 0]))
        return jnp.stack(jax.vmap(make)(turns), -1)

    def legal_action_mask(self, state: GameState) -> Array:
        board2d = state.board.reshape(6, 7)
        return (board2d >= 0).sum(axis=0) < 6

    def is_terminal(self, state: GameState) -> Array:
        board2d = state.board.reshape(6, 7)
        return (state.winner >= 0) | jnp.all((board2d >= 0).sum(axis=0) == 6)

    def rewards(self, state: GameState) -> Array:
        return jax.lax.select(
            state.winner >= 0,
            jnp.float32([-1, -1]).at[state.winner].set(1),
            jnp.zeros(2, jnp.float32),
        )


def _make_win_cache():
    idx = []
    # Vertical
    for i in range(3):
        for j in range(7):
            a = i * 7 + j
            idx.append([a, a + 7, a + 14, a + 21])
    # Horizontal
    for i in range(6):
        for j in range(4):
            a = i * 7 + j
            idx.append([a, a + 1, a + 2, a + 3])

    # Diagonal
    for i in range(3):
        for j in range(4):
            a = i * 7 + j
            idx.append([a, a + 8, a + 16, a + 24])
    for i in range(3):
        for j in range(3, 7):
            a = i * 7 + j
            idx.append([a, a + 6, a + 12, a + 18])
    return jnp.int32(idx)


IDX = _make_win_cache()


if __name__ == "__main__":
    game = Game()
    state = jax.vmap(lambda _: game.init())(jnp.arange(2))
    step = jax.jit(jax.vmap(game.step))
    terminal = jax.jit(jax.vmap(game.is_terminal))
    for action in [0, 1, 0, 1, 0, 1, 0]:
        state = step(state, jnp.int32([action, 6 - action]))
    mask = jax.jit(jax.vmap(game.legal_action_mask))(state)
    obs = jax.jit(jax.vmap(game.observe))(state, jnp.int32([0, 0]))
    rewards = jax.jit(jax.vmap(game.rewards))(state)
    assert terminal(state).tolist() == [True, True]
    assert state.winner.tolist() == [0, 0]
    assert rewards.tolist() == [[1.0, -1.0], [1.0, -1.0]]
    assert mask.shape == (2, 7) and obs.shape == (2, 6, 7, 2)
