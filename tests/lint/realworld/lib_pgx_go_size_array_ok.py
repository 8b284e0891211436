# source: https://github.com/sotetsuk/pgx/blob/d03e77856f226c158d37d36b36b179d5ac2e0ea7/pgx/_src/games/go.py
#   (GameState after "[Go] Fix `size` attribute jittable", https://github.com/sotetsuk/pgx/pull/1158)
# observed on jax 0.10.2 CPU: state.size stays an array and the jitted function that
#   reads it returns 19. Added: the __main__ block (a jitted function that reads the
#   property, as pgx's jitted step and observe do).
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
    def size(self) -> Array:
        return jnp.sqrt(self.chain_id_board.shape[-1]).astype(jnp.int32)


if __name__ == "__main__":
    state = GameState()
    assert int(jax.jit(lambda state: state.size)(state)) == 19
