# source: https://github.com/sotetsuk/pgx/blob/8575a3f6823a928bcef895c7f0913ae1e5fb39e4/pgx/_src/games/go.py
#   (GameState before "[Go] Fix `size` attribute jittable", https://github.com/sotetsuk/pgx/pull/1158)
# observed on jax 0.10.2 CPU: reading state.size inside jax.jit raises
#   ConcretizationTypeError at `.item()`: jnp.sqrt of the static board length is a traced
#   array under jit. Eagerly it returns 19. Added: the __main__ block (a jitted function
#   that reads the property, as pgx's jitted step and observe do).
# gap: omnistaging
from functools import partial
from typing import NamedTuple, Optional

import jax
from jax import Array
from jax import numpy as jnp


class GameState(NamedTuple):
    step_count: Array = jnp.int32(0)
    # ids of representative stone id (smallest) in the connected stones
    # positive for black, negative for white, and zero for empty.
    chain_id_board: Array = jnp.zeros(19 * 19, dtype=jnp.int32)
    board_history: Array = jnp.full((8, 19 * 19), 2, dtype=jnp.int32)  # mainly for obs
    num_captured_stones: Array = jnp.zeros(2, dtype=jnp.int32)  # [b, w]
    consecutive_pass_count: Array = jnp.int32(0)  # two consecutive pass ends the game
    ko: Array = jnp.int32(-1)  # by SSK
    is_psk: Array = jnp.bool_(False)

    @property
    def color(self) -> Array:
        return self.step_count % 2

    @property
    def size(self) -> int:
        return int(jnp.sqrt(self.chain_id_board.shape[-1]).astype(jnp.int32).item())  # expect: JIT401


if __name__ == "__main__":
    state = GameState()
    assert state.size == 19
    jax.jit(lambda state: state.size)(state)
