# source: https://github.com/sotetsuk/pgx/blob/ed4139e00f0b22ea3d0145e9386b578b69bdf5a7/pgx/shogi.py
#   (_legal_promotion before "[Shogi] Fix unjittable bug", https://github.com/sotetsuk/pgx/pull/379)
# observed on jax 0.10.2 CPU: under jax.jit, `promotion.at[state.piece_board >= GOLD, :]`
#   raises NonConcreteBooleanIndexError: the boolean mask on the traced board has a
#   value-dependent number of rows. Eagerly the function runs. Added: the piece constants
#   of the same file that the function reads, a stand-in State holding only piece_board
#   (the real State is a pgx dataclass with many more fields), and the __main__ block.
# gap: exemption-vs-JAX
from typing import NamedTuple

import jax
import jax.numpy as jnp

ZERO = jnp.int8(0)
TWO = jnp.int8(2)
PAWN = jnp.int8(0)
LANCE = jnp.int8(1)
KNIGHT = jnp.int8(2)
GOLD = jnp.int8(6)


class State(NamedTuple):
    piece_board: jnp.ndarray


def _legal_promotion(state: State, legal_moves: jnp.ndarray) -> jnp.ndarray:
    """Generate legal promotion (81, 81)
    0 = cannot promote
    1 = can promote (from or to opp area)
    2 = have to promote (get stuck)
    """
    promotion = legal_moves.astype(jnp.int8)
    # mask where piece cannot promote
    in_opp_area = jnp.arange(81) % 9 < 3
    tgt_in_opp_area = jnp.tile(in_opp_area, reps=(81, 1))
    src_in_opp_area = tgt_in_opp_area.transpose()
    mask = src_in_opp_area | tgt_in_opp_area
    promotion = jnp.where(mask, promotion, ZERO)
    # mask where piece have to promote
    is_line1 = jnp.tile(jnp.arange(81) % 9 == 0, reps=(81, 1))
    is_line2 = jnp.tile(jnp.arange(81) % 9 == 1, reps=(81, 1))
    where_pawn_or_lance = (state.piece_board == PAWN) | (
        state.piece_board == LANCE
    )
    where_knight = state.piece_board == KNIGHT
    is_stuck = jnp.tile(where_pawn_or_lance, (81, 1)).transpose() & is_line1
    is_stuck |= jnp.tile(where_knight, (81, 1)).transpose() & (
        is_line1 | is_line2
    )
    promotion = jnp.where((promotion != 0) & is_stuck, TWO, promotion)
    promotion = promotion.at[state.piece_board >= GOLD, :].set(ZERO)  # expect: JIT403
    return promotion


if __name__ == "__main__":
    piece_board = jnp.full(81, -1, dtype=jnp.int8).at[:9].set(PAWN).at[9:12].set(GOLD)
    state = State(piece_board=piece_board)
    legal_moves = jnp.ones((81, 81), dtype=jnp.bool_)
    _legal_promotion(state, legal_moves)
    jax.jit(_legal_promotion)(state, legal_moves)
