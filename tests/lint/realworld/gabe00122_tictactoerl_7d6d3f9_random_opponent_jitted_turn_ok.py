# source: https://github.com/gabe00122/tictactoe-rl/blob/7d6d3f9b8b6d041ebb7783d64efff4c62f7c1a00/tictactoe_ai/play.py
#   (a personal tic-tac-toe RL project; commit "fixed game over check"), with the game rules it
#   imports at the same commit: tictactoe_ai/gamerules/initialize.py, turn.py, over.py and
#   types/state.py, types/over.py
# observed on jax 0.10.2 CPU: the board is a pytree of arrays, the game rules branch with
#   jax.lax.cond and vmap, and the jitted get_random_move splits its key and hands the new key
#   back, so every opponent move draws from a fresh key; a whole game runs under jit to a
#   terminal state with legal moves only; `turn` keeps four traces (int8 or int32 player, as
#   its cond returns a weakly typed int32, times int8 human or int32 random actions) and a
#   second game compiles nothing new.
# gap: other
# added: the modules inlined into one file (imports adjusted); display() from display.py
#   replaced by a plain print of the board; get_human_move's input() replaced by a scripted
#   human who takes the first free cell; play() takes the scripted human and returns the
#   final state; the __main__ block.
import jax
from jax import numpy as jnp, random
from typing import TypedDict
from jaxtyping import Array, Scalar, Bool, Int8


# ---- gamerules/types/over.py, types/state.py --------------------------------
class OverResult(TypedDict):
    is_over: Bool[Scalar, ""]
    winner: Int8[Scalar, ""]  # 0 is a draw


class GameState(TypedDict):
    board: Int8[Array, "3 3"]
    active_player: Int8[Scalar, ""]
    over_result: OverResult


# ---- gamerules/initialize.py ------------------------------------------------
def initalize_game() -> GameState:
    return {
        'board': jnp.zeros((3, 3), dtype=jnp.int8),
        'active_player': jnp.int8(1),
        'over_result': {
            'is_over': jnp.bool(False),
            'winner': jnp.int8(0)
        },
    }


# ---- gamerules/over.py ------------------------------------------------------
def check_gameover(board: Int8[Array, "3 3"]) -> OverResult:
    players = jnp.array([-1, 1], dtype=jnp.int8)
    
    v_check_player_won = jax.vmap(check_player_won, in_axes=(None, 0))
    winners = v_check_player_won(board, players)
    
    is_winner = jnp.any(winners)
    
    def some_winner():
        winner = jnp.argmax(winners)
        winner = jax.lax.cond(winner == 0, lambda: -1, lambda: 1)
        return {
            'is_over': True,
            'winner': winner,
        }
    
    def no_winner():
        no_space_left = check_no_space_left(board)
        return {
            'is_over': no_space_left,
            'winner': 0,
        }
    
    return jax.lax.cond(is_winner, some_winner, no_winner)


def check_player_won(board: Int8[Array, "3 3"], player: Int8[Scalar, ""]) -> Bool[Scalar, ""]:
    mask = board == player
    out = mask.all(0).any() | mask.all(1).any()
    out |= jnp.diag(mask).all() | jnp.diag(mask[:, ::-1]).all()
    return out


def check_no_space_left(board: Int8[Array, "3 3"]) -> Bool[Scalar, ""]:
    return jnp.all(board != 0)


# ---- gamerules/turn.py ------------------------------------------------------
def turn(state: GameState, action: Int8[Scalar, ""]) -> GameState:
    board = state['board']
    active_player = state['active_player']
    
    x_pos = action % 3
    y_pos = action // 3
    board = board.at[y_pos, x_pos].set(active_player)
    active_player = jax.lax.cond(active_player == 1, lambda: -1, lambda: 1)
    
    return {
        'board': board,
        'active_player': active_player,
        'over_result': check_gameover(board),
    }


# ---- play.py ----------------------------------------------------------------
def display(state: GameState):  # stand-in for display.py
    print(state['board'])


initalize_game = jax.jit(initalize_game)
turn = jax.jit(turn)


def play(get_human_move):
    key = random.PRNGKey(434)
    
    state: GameState = initalize_game()
    display(state)
    while not state['over_result']['is_over']:
        # X's
        move = get_human_move(state)
        state = turn(state, move)

        # O's
        move, key = get_random_move(state, key)
        state = turn(state, move)
        display(state)
    return state


@jax.jit
def get_random_move(state, key):
    board = state["board"]
    avalible_moves = board.reshape((9,)) == 0
    count = jnp.count_nonzero(avalible_moves)
    probs = avalible_moves / count
    key, choice_key = random.split(key)

    return random.choice(choice_key, jnp.arange(9), p=probs), key


def get_human_move(state):  # stand-in for input(): the first free cell
    free = [i for i, v in enumerate(state['board'].reshape(9).tolist()) if v == 0]
    return jnp.int8(free[0])


if __name__ == '__main__':
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    # the opponent's moves: each from a fresh key, always on a free cell
    state = initalize_game()
    key = random.PRNGKey(0)
    seen = []
    for _ in range(4):
        move, key = get_random_move(state, key)
        assert int(state['board'].reshape(9)[move]) == 0
        seen.append(int(move))
        state = turn(state, move)
    assert len(set(seen)) == 4, seen

    final = play(get_human_move)
    board = final['board']
    print("over:", bool(final['over_result']['is_over']),
          "winner:", int(final['over_result']['winner']))
    assert bool(final['over_result']['is_over'])
    assert int(jnp.sum(board == 1)) - int(jnp.sum(board == -1)) in (0, 1)
    sizes = (turn._cache_size(), get_random_move._cache_size())
    print("traces kept by turn, get_random_move:", sizes)
    n = len(compiles)
    play(get_human_move)  # a second game: nothing new to compile
    assert sizes == (turn._cache_size(), get_random_move._cache_size())
    assert len(compiles) == n, len(compiles) - n
