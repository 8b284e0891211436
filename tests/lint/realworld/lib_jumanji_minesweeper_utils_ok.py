# source: https://github.com/instadeepai/jumanji/blob/36ab99751f8d3256dd3131867523ea02574bb2fe/jumanji/environments/logic/minesweeper/utils.py
# observed on jax 0.10.2 CPU: runs clean under jit: `tuple(action)` and `row, col = action`
#   unpack a traced (2,) action into traced scalars that index the board, the board's
#   shape and the mine count are static, and the patch around the action is cut with
#   dynamic_slice_in_dim; the jitted functions agree with the same functions run eagerly.
#   Kept as Jumanji wrote them: the utils module's six functions. Added: its constants
#   (minesweeper/constants.py) and State (minesweeper/types.py, a chex dataclass), and a
#   __main__ block that places mines and explores squares under jax.jit the way the
#   environment's reset and step use these functions.
# gap: exemption-vs-JAX
import chex
import jax
import jax.numpy as jnp
from chex import dataclass

UNEXPLORED_ID: int = -1
IS_MINE: int = 1
PATCH_SIZE: int = 3


@dataclass
class State:
    board: chex.Array  # (num_rows, num_cols)
    step_count: chex.Numeric  # ()
    flat_mine_locations: chex.Array  # (num_mines,)
    key: chex.PRNGKey  # (2,)


def create_flat_mine_locations(
    key: chex.PRNGKey,
    num_rows: int,
    num_cols: int,
    num_mines: int,
) -> chex.Array:
    """Create locations of mines on a board with a specified height, width, and number
    of mines. The locations are in flattened coordinates.

    Args:
        key: used for sampling mine positions.
        num_rows: the height of the board.
        num_cols: the width of the board.
        num_mines: how many mines to place.
    """
    return jax.random.choice(
        key,
        num_rows * num_cols,
        shape=(num_mines,),
        replace=False,
    )


def is_solved(state: State) -> chex.Array:
    """Check if all non-mined squares have been explored."""
    board = state.board
    num_mines = state.flat_mine_locations.shape[-1]
    num_rows, num_cols = board.shape
    num_explored = (board >= 0).sum()
    return num_explored == num_rows * num_cols - num_mines


def is_valid_action(state: State, action: chex.Array) -> chex.Array:
    """Check if an action is exploring a square that has not already been explored."""
    return state.board[tuple(action)] == UNEXPLORED_ID


def get_mined_board(state: State) -> chex.Array:
    """Compute the board with 1 in mine locations, otherwise 0."""
    return (
        jnp.zeros((state.board.shape[-1] * state.board.shape[-2],), dtype=jnp.int32)
        .at[state.flat_mine_locations]
        .set(IS_MINE)
    )


def explored_mine(state: State, action: chex.Array) -> chex.Array:
    """Check if an action is exploring a square containing a mine."""
    row, col = action
    index = col + row * state.board.shape[-1]
    mined_board = get_mined_board(state=state)
    return mined_board[index] == IS_MINE


def count_adjacent_mines(state: State, action: chex.Array) -> chex.Array:
    """Count the number of mines in a 3x3 patch surrounding the selected action."""
    action_row, action_col = action
    mined_board = get_mined_board(state=state).reshape(*state.board.shape)
    pad_board = jnp.pad(mined_board, pad_width=PATCH_SIZE - 1)
    selected_rows = jax.lax.dynamic_slice_in_dim(
        pad_board, start_index=action_row + 1, slice_size=PATCH_SIZE, axis=-2
    )
    return (
        jax.lax.dynamic_slice_in_dim(
            selected_rows,
            start_index=action_col + 1,
            slice_size=PATCH_SIZE,
            axis=-1,
        ).sum()
        - mined_board[tuple(action)]
    )


if __name__ == "__main__":
    num_rows, num_cols, num_mines = 5, 6, 4

    @jax.jit
    def reset(key):
        key, mine_key = jax.random.split(key)
        flat_mine_locations = create_flat_mine_locations(mine_key, num_rows, num_cols, num_mines)
        board = jnp.full((num_rows, num_cols), UNEXPLORED_ID, dtype=jnp.int32)
        return State(board=board, step_count=jnp.int32(0),
                     flat_mine_locations=flat_mine_locations, key=key)

    @jax.jit
    def step(state, action):
        valid = is_valid_action(state, action)
        hit = explored_mine(state, action)
        board = state.board.at[tuple(action)].set(count_adjacent_mines(state=state, action=action))
        next_state = state.replace(board=board, step_count=state.step_count + 1)
        return next_state, valid, hit, is_solved(next_state)

    state = reset(jax.random.PRNGKey(0))
    mined = get_mined_board(state).reshape(num_rows, num_cols)
    assert int(mined.sum()) == num_mines
    safe = [(r, c) for r in range(num_rows) for c in range(num_cols) if int(mined[r, c]) == 0]
    for r, c in safe:
        action = jnp.array([r, c], dtype=jnp.int32)
        expected_count = count_adjacent_mines(state, action)  # eager
        state, valid, hit, solved = step(state, action)
        assert bool(valid) and not bool(hit)
        assert int(state.board[r, c]) == int(expected_count)
        # brute-force check of the 3x3 count
        brute = sum(int(mined[i, j]) for i in range(max(r - 1, 0), min(r + 2, num_rows))
                    for j in range(max(c - 1, 0), min(c + 2, num_cols))) - int(mined[r, c])
        assert int(expected_count) == brute, (r, c, expected_count, brute)
    assert bool(solved)
    r, c = safe[0]
    _, valid, _, _ = step(state, jnp.array([r, c], dtype=jnp.int32))
    assert not bool(valid)
    print("solved after", int(state.step_count), "steps")
