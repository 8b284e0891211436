# source: https://github.com/instadeepai/jumanji/blob/7b4ce1c6a95b456701ffb8b7b9b9092ac58131b9/jumanji/environments/logic/sliding_tile_puzzle/generator.py
#   (SolvableSTPGenerator after commit 7b4ce1c6 "fix: make _make_random_move fn jittable":
#   the move is drawn with jax.random.choice(key, MOVES, shape=(), p=valid_moves_mask)
#   instead of indexing the move indices with the boolean mask)
# observed on jax 0.10.2 CPU: jax.jit of the generator runs clean and returns a permutation
#   of the tiles with the empty tile where the returned position says. Kept verbatim: the
#   Generator base class and SolvableSTPGenerator; EMPTY_TILE and MOVES are copied from
#   constants.py at the same commit. `chex.PRNGKey`/`chex.Array` are spelled `jax.Array`
#   (chex is not installed). The jitted call in __main__ stands in for the jitted env.reset
#   that calls the generator.
# gap: types
import abc
from typing import Tuple

import jax
from jax import numpy as jnp

EMPTY_TILE = 0

UP = [-1, 0]
DOWN = [1, 0]
LEFT = [0, -1]
RIGHT = [0, 1]

MOVES = jnp.array([UP, RIGHT, DOWN, LEFT])


class Generator(abc.ABC):
    @property
    @abc.abstractmethod
    def grid_size(self) -> int:
        """Size of the puzzle (n x n grid)."""

    @abc.abstractmethod
    def __call__(self, key: jax.Array) -> Tuple[jax.Array, Tuple[int, int]]:
        """Generate a problem instance.

        Args:
            key: jax random key for any stochasticity used in the instance generation process.

        Returns:
            A tuple of a 2D array representing a problem instance and a tuple
            indicating the position of the empty tile.
        """


class SolvableSTPGenerator(Generator):
    """A generator for solvable Sliding Tile Puzzle configurations.

    This generator creates puzzle configurations that are guaranteed to be solvable.
    It starts with a solved configuration
    and makes a series of valid random moves to shuffle the tiles.

    Args:
        grid_size: The size of the puzzle (n x n grid).
        num_shuffle_moves: The number of shuffle moves to perform from the solved state.
    """

    def __init__(self, grid_size: int, num_shuffle_moves: int = 100):
        self._grid_size = grid_size
        self.num_shuffle_moves = num_shuffle_moves

    @property
    def grid_size(self) -> int:
        """Returns the size of the puzzle (n x n grid)."""
        return self._grid_size

    def __call__(self, key: jax.Array) -> Tuple[jax.Array, jax.Array]:
        """Generate a random Sliding Tile Puzzle configuration.

        Args:
            key: PRNGKey used for stochasticity in the generation process.

        Returns:
            A tuple of a 2D array representing a problem instance and a tuple
            indicating the position of the empty tile.
        """
        # Start with a solved puzzle
        puzzle = jnp.append(jnp.arange(1, self._grid_size**2), EMPTY_TILE).reshape(
            (self._grid_size, self._grid_size)
        )
        empty_tile_position = jnp.array([self._grid_size - 1, self._grid_size - 1])

        # Perform a number of shuffle moves
        for _ in range(self.num_shuffle_moves):
            key, subkey = jax.random.split(key)
            empty_tile_position, puzzle = self._make_random_move(
                subkey, puzzle, empty_tile_position
            )

        return puzzle, empty_tile_position

    def _swap_tiles(
        self, puzzle: jax.Array, pos1: jax.Array, pos2: jax.Array
    ) -> jax.Array:
        """Swaps the tiles at the given positions."""
        temp = puzzle[tuple(pos1)]
        puzzle = puzzle.at[tuple(pos1)].set(puzzle[tuple(pos2)])
        puzzle = puzzle.at[tuple(pos2)].set(temp)
        return puzzle

    def _make_random_move(
        self, key: jax.Array, puzzle: jax.Array, empty_tile_position: jax.Array
    ) -> Tuple[jax.Array, jax.Array]:
        """Makes a random valid move."""
        key, subkey = jax.random.split(key)
        new_positions = empty_tile_position + MOVES

        # Determine valid moves (known-size boolean array)
        valid_moves_mask = jnp.all(
            (new_positions >= 0) & (new_positions < self._grid_size), axis=-1
        )
        move = jax.random.choice(key, MOVES, shape=(), p=valid_moves_mask)
        new_empty_tile_position = empty_tile_position + move
        # Swap the empty tile with the tile at the new position using _swap_tiles
        updated_puzzle = self._swap_tiles(
            puzzle, empty_tile_position, new_empty_tile_position
        )

        return new_empty_tile_position, updated_puzzle


if __name__ == "__main__":
    generator = SolvableSTPGenerator(grid_size=3, num_shuffle_moves=10)
    puzzle, empty_tile_position = jax.jit(generator)(jax.random.PRNGKey(0))
    assert sorted(puzzle.ravel().tolist()) == list(range(9))
    assert int(puzzle[tuple(empty_tile_position.tolist())]) == EMPTY_TILE
    print(puzzle, empty_tile_position)
