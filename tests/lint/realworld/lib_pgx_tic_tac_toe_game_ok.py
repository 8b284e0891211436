# source: https://github.com/sotetsuk/pgx/blob/079b2d730e3845c25d49d99e0ccf9a374dd04cb9/pgx/_src/games/tic_tac_toe.py
#   (pgx's tic-tac-toe game logic, verbatim but for the license header. The __main__ block
#   plays random games to the end under jax.jit: a lax.while_loop on `~is_terminal`, each
#   step drawing a legal action from a split key, vmapped over eight keys, and checks the
#   rewards)
# observed on jax 0.10.2 CPU: runs clean: the win test indexes the board with a constant
#   index table, and every traced decision goes through jax.lax.select or jnp.where; the
#   only Python test, `color is None`, is on an argument's presence.
# gap: exemption-vs-JAX
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax import Array


class GameState(NamedTuple):
    color: Array = jnp.int32(0)  # 0 = X, 1 = O
    # 0 1 2
    # 3 4 5
    # 6 7 8
    board: Array = -jnp.ones(9, jnp.int32)  # -1 (empty), 0, 1
    winner: Array = jnp.int32(-1)


class Game:
    def init(self) -> GameState:
        return GameState()

    def step(self, state: GameState, action: Array) -> GameState:
        board = state.board.at[action].set(state.color)
        idx = jnp.int32([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]])  # type: ignore
        won = (board[idx] == state.color).all(axis=1).any()
        winner = jax.lax.select(won, state.color, -1)
        return state._replace(  # type: ignore
            board=state.board.at[action].set(state.color),
            color=(state.color + 1) % 2,
            winner=winner,
        )

    def observe(self, state: GameState, color: Optional[Array] = None) -> Array:
        if color is None:
            color = state.color

        @jax.vmap
        def plane(i):
            return (state.board == i).reshape((3, 3))

        x = jax.lax.select(color == 0, jnp.int32([0, 1]), jnp.int32([1, 0]))
        return jnp.stack(plane(x), -1)

    def legal_action_mask(self, state: GameState) -> Array:
        return state.board < 0

    def is_terminal(self, state: GameState) -> Array:
        return (state.winner >= 0) | jnp.all(state.board != -1)

    def rewards(self, state: GameState) -> Array:
        return jax.lax.select(
            state.winner >= 0,
            jnp.float32([-1, -1]).at[state.winner].set(1),
            jnp.zeros(2, jnp.float32),
        )


if __name__ == "__main__":
    game = Game()

    @jax.jit
    def play(key):
        def cond(carry):
            state, key = carry
            return ~game.is_terminal(state)

        def body(carry):
            state, key = carry
            key, subkey = jax.random.split(key)
            logits = jnp.where(game.legal_action_mask(state), 0.0, -jnp.inf)
            action = jax.random.categorical(subkey, logits)
            return game.step(state, action), key

        state, _ = jax.lax.while_loop(cond, body, (game.init(), key))
        return state.winner, game.rewards(state), game.observe(state)

    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    winners, rewards, obs = jax.vmap(play)(keys)
    print(winners, rewards.sum(axis=1))
    assert obs.shape == (8, 3, 3, 2)
    assert bool(jnp.all(jnp.where(winners >= 0, rewards.max(axis=1) == 1, rewards.max(axis=1) == 0)))
