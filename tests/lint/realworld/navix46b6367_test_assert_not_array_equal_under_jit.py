# source: https://github.com/epignatelli/navix/blob/c29045a691cfc4d87e5dfd371314e012eb60ae6c/tests/test_grid.py
#   (test_random_positions before commit 46b6367, "make sure test does not break when
#   function is jitted",
#   https://github.com/epignatelli/navix/commit/46b63678dced83ea87e367c8366df36e7785e3f2)
# observed on jax 0.10.2 CPU: `f()` runs eagerly, then `jax.jit(f)()` raises
#   TracerBoolConversionError at the `assert not jnp.array_equal(...)` inside f: under jit
#   the positions the reset draws are tracers, and `assert` asks Python for their truth.
#   The fixing commit returns the two positions from f and asserts outside it.
#   Kept verbatim: test_random_positions and the `__main__` call. Stand-in (navix 2023 is not
#   installed): `nx.environments.KeyDoor` is a small environment whose reset draws the player
#   and key positions in the left room with navix's own `random_positions` (grid.py at the
#   same commit, with `idx_from_coordinates`/`coordinates_from_idx`), from separate keys.
# gap: other
import types

import jax
import jax.numpy as jnp


def idx_from_coordinates(grid, coordinates):
    return coordinates[0] * grid.shape[0] + coordinates[1]


def coordinates_from_idx(grid, idx):
    return jnp.stack(jnp.divmod(idx, grid.shape[0]))


def random_positions(key, grid, n=1, exclude=jnp.asarray([(-1, -1)])):
    mask = jnp.where(grid, 0, 1).reshape((-1,))  # all floor tiles
    mask = jnp.min(
        jax.vmap(
            lambda position: mask.at[idx_from_coordinates(grid, position)].set(0)
        )(exclude),
        axis=0,
    )
    log_probs = jnp.log(mask)
    idx = jax.random.categorical(key, log_probs, shape=(n,))
    positions = coordinates_from_idx(grid, idx).T
    return positions.squeeze()


class KeyDoor:
    # stand-in for navix.environments.KeyDoor: player and key in the left room
    def __init__(self, width, height, max_steps):
        self.width, self.height, self.max_steps = width, height, max_steps

    def reset(self, key):
        k1, k2 = jax.random.split(key)
        grid = jnp.pad(jnp.zeros((self.height - 2, self.width - 2), dtype=jnp.int32), 1,
                       constant_values=-1)
        first_room = grid.at[:, self.width // 2:].set(-1)
        player_pos = random_positions(k1, first_room)
        key_pos = random_positions(k2, first_room, exclude=player_pos[None])
        player = types.SimpleNamespace(position=player_pos)
        keys = types.SimpleNamespace(position=key_pos[None])
        return types.SimpleNamespace(state=types.SimpleNamespace(player=player, keys=keys))


nx = types.SimpleNamespace(environments=types.SimpleNamespace(KeyDoor=KeyDoor))


def test_random_positions():
    def f():
        env = nx.environments.KeyDoor(18, 6, 100)
        key = jax.random.PRNGKey(7)
        timestep = env.reset(key)
        # without the `exclude` params in `random_positions` this
        # specific configuration draws player pos [2, 1] and key
        # pos [2, 1] check that this does not happen anymore
        assert not jnp.array_equal(timestep.state.player.position, timestep.state.keys.position[0])  # expect: JIT103


    f()
    jax.jit(f)()


if __name__ == "__main__":
    # test_grid()
    test_random_positions()
