# source: https://github.com/epignatelli/navix/blob/c29045a691cfc4d87e5dfd371314e012eb60ae6c/navix/environments/keydoor.py
#   (KeyDoor.reset at navix commit c29045a, June 2023; the same `k2` is drawn from for the
#   player's direction, the key's position and the goal's position in every version of the
#   file from b1b69e5 back, e.g.
#   https://github.com/epignatelli/navix/blob/b1b69e55e4fe003c90d9e0a69ae4ae8ddd95b811/navix/environments/keydoor.py)
# observed on jax 0.10.2 CPU: reset splits its key into k1..k4, then draws the player's
#   direction (random_directions), the key's position and the goal's position all from k2:
#   the three draws consume one key, so the key and goal placements are tied to the player's
#   direction. `__main__` records the key every `jax.random` draw in reset receives and
#   finds the same key at all three lines; the jitted reset (as navix runs it) returns the
#   same layout. Kept verbatim: KeyDoor.reset and grid.py's mask_by_address, two_rooms,
#   random_positions, random_directions, idx_from_coordinates and coordinates_from_idx.
#   Stand-ins (navix 2023 is not installed): the Environment base class keeps its static
#   width/height/max_steps fields and an observation returning the grid; the components
#   (Player, Pickable, Goal, Consumable, State, Timestep) are flax PyTreeNodes with the fields
#   reset fills. `jax.random.KeyArray` (removed) is spelled `jax.Array`.
# gap: other
from typing import Callable, Tuple

from flax import struct
import jax
from jax import Array
import jax.numpy as jnp

KeyArray = Array
Coordinates = Tuple[Array, Array]


# --- stand-ins for navix.components and navix.environments.Environment ---
class Player(struct.PyTreeNode):
    position: Array
    direction: Array


class Pickable(struct.PyTreeNode):
    position: Array
    id: Array


class Goal(struct.PyTreeNode):
    position: Array


class Consumable(struct.PyTreeNode):
    position: Array
    requires: Array


class State(struct.PyTreeNode):
    key: Array
    grid: Array
    player: Player
    goals: Goal
    keys: Pickable
    doors: Consumable


class Timestep(struct.PyTreeNode):
    t: Array
    observation: Array
    action: Array
    reward: Array
    step_type: Array
    state: State


class Environment(struct.PyTreeNode):
    width: int = struct.field(pytree_node=False)
    height: int = struct.field(pytree_node=False)
    max_steps: int = struct.field(pytree_node=False)

    def observation(self, state):
        return state.grid


# --- navix/grid.py at c29045a ---
def idx_from_coordinates(grid: Array, coordinates: Array):
    return coordinates[0] * grid.shape[0] + coordinates[1]


def coordinates_from_idx(grid: Array, idx: Array):
    return jnp.stack(jnp.divmod(idx, grid.shape[0]))


def mask_by_address(
    grid: Array,
    address: Coordinates,
    comparison_fn: Callable[[Array, Array], Array] = jnp.greater_equal,
) -> Array:
    mesh = jnp.mgrid[0 : grid.shape[0], 0 : grid.shape[1]]
    cond_1 = comparison_fn(mesh[0], address[0])
    cond_2 = comparison_fn(mesh[1], address[1])
    mask = jnp.asarray(jnp.logical_and(cond_1, cond_2), dtype=jnp.int32)
    return mask


def two_rooms(width: int, height: int, key: KeyArray) -> Tuple[Array, Array]:
    """Two rooms separated by a vertical wall at `width // 2`"""
    # create room
    grid = jnp.zeros((height - 2, width - 2), dtype=jnp.int32)
    grid = jnp.pad(grid, 1, mode="constant", constant_values=-1)

    # add separation wall
    wall_at = jax.random.randint(key, (), 2, width - 2)
    grid = grid.at[1:-1, wall_at].set(-1)
    return grid, wall_at


def random_positions(
    key: KeyArray, grid: Array, n=1, exclude: Array = jnp.asarray([(-1, -1)])
) -> Array:
    # all floor tiles
    # TODO(epignatelli): switch to all walkable tiles
    mask = jnp.where(grid, 0, 1).reshape((-1,))  # all floor tiles

    # temporarily set excluded positions to 0 probability
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


def random_directions(key: KeyArray, n=1) -> Array:
    return jax.random.randint(key, (n,), 0, 4).squeeze()


# --- navix/environments/keydoor.py at c29045a ---
class KeyDoor(Environment):
    def reset(self, key) -> Timestep:
        key, k1, k2, k3, k4 = jax.random.split(key, 5)

        grid, wall_at = two_rooms(self.width, self.height, k4)

        # spawn player and key in the first room
        out_of_bounds = jnp.asarray(self.height)
        first_room_mask = mask_by_address(grid, (out_of_bounds, wall_at), jnp.less)
        first_room = jnp.where(first_room_mask, grid, -1)

        # player
        player_pos = random_positions(k1, first_room)
        player_dir = random_directions(k2)
        player = Player(position=player_pos, direction=player_dir)

        # key
        key_pos = random_positions(k2, first_room, exclude=player_pos[None])  # expect: JIT502
        keys = Pickable(position=key_pos[None], id=jnp.asarray(3)[None])

        # spawn the goal in the second room
        second_room = jnp.where(first_room_mask, -1, grid)
        goal_pos = random_positions(k2, second_room, exclude=jnp.stack([player_pos, key_pos]))  # expect: JIT502
        goals = Goal(position=goal_pos[None])

        # add the door
        door_coordinates = jnp.asarray(
            [
                jax.random.randint(k3, (), 1, self.height - 1),
                wall_at,
            ]
        )
        doors = Consumable(
            position=door_coordinates[None], requires=jnp.asarray(3)[None]
        )

        state = State(
            key=key,
            grid=grid,
            player=player,
            goals=goals,
            keys=keys,
            doors=doors,
        )
        return Timestep(
            t=jnp.asarray(0, dtype=jnp.int32),
            observation=self.observation(state),
            action=jnp.asarray(-1, dtype=jnp.int32),
            reward=jnp.asarray(0.0, dtype=jnp.float32),
            step_type=jnp.asarray(0, dtype=jnp.int32),
            state=state,
        )


if __name__ == "__main__":
    import sys

    env = KeyDoor(width=8, height=6, max_steps=100)
    seed = jax.random.PRNGKey(3)
    jitted = jax.jit(env.reset)(seed)

    # record, for each draw made inside KeyDoor.reset, the reset line and the key it received
    draws = []
    real_categorical, real_randint = jax.random.categorical, jax.random.randint

    def caller_line():
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_name == "reset" and frame.f_code.co_filename == __file__:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def categorical(key, *args, **kwargs):
        draws.append((caller_line(), tuple(jax.random.key_data(key).tolist()) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else tuple(key.tolist())))
        return real_categorical(key, *args, **kwargs)

    def randint(key, *args, **kwargs):
        draws.append((caller_line(), tuple(key.tolist())))
        return real_randint(key, *args, **kwargs)

    jax.random.categorical, jax.random.randint = categorical, randint
    eager = env.reset(seed)  # tolerate: JIT502
    jax.random.categorical, jax.random.randint = real_categorical, real_randint

    by_line = dict(draws)
    direction_line, key_line, goal_line = 149, 153, 158
    # observed: line 153 draws the key's position from k2, the key the player's direction was drawn from
    assert by_line[key_line] == by_line[direction_line], draws
    # observed: line 158 draws the goal's position from that same k2 a third time
    assert by_line[goal_line] == by_line[direction_line], draws
    assert len({by_line[line] for line in by_line}) == len(by_line) - 2
    assert jnp.array_equal(jitted.state.keys.position, eager.state.keys.position)
    assert jnp.array_equal(jitted.state.goals.position, eager.state.goals.position)
