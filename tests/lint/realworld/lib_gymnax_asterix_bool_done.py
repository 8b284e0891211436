# source: https://github.com/RobertTLange/gymnax/blob/88fef6978d3d9966828256bfc27f5489b57f7757/gymnax/environments/minatar/asterix.py
#   (step_entities before commit 0096e0e3, "fix: non-jittable code", which returns
#   jnp.bool_(done > 0))
# observed on jax 0.10.2 CPU: step_entities under jax.jit raises TracerBoolConversionError
#   at `bool(done > 0)` on the traced collision count. Only EnvState and step_entities are
#   kept; gymnax's base class environment.EnvState is dropped and `chex.Array` is spelled
#   `jax.Array` (gymnax and chex are not installed). The jitted call at the end stands in
#   for the jitted env.step that reaches step_entities.
# gap: other
from typing import Tuple

from flax import struct
import jax
import jax.numpy as jnp


@struct.dataclass
class EnvState:
    """State of the environment."""

    player_x: int
    player_y: int
    shot_timer: int
    spawn_speed: int
    spawn_timer: int
    move_speed: int
    move_timer: int
    ramp_timer: int
    ramp_index: int
    entities: jax.Array
    time: int
    terminal: bool


def step_entities(
    state: EnvState,
) -> Tuple[EnvState, jnp.ndarray, bool]:
    """Update positions of the entities and return reward, done."""
    done, reward = 0, jnp.array(0)
    # Loop over entities and check for collisions - either gold or enemy
    entities = state.entities
    for i in range(8):
        x = entities[i]
        slot_filled = x[4] != 0
        # Get boolean for any collision with either gold or enemy
        coords = jnp.logical_and(x[0] == state.player_x, x[1] == state.player_y)
        collision = jnp.logical_and(coords, slot_filled)
        # If collision with gold: empty gold and give positive reward
        collision_gold = jnp.logical_and(collision, x[3])
        reward += collision_gold
        # Set row i to zeros if collision with gold
        entities = entities.at[i].set(x * (1 - collision_gold))

        # If collision with enemy: terminate the episode
        collision_enemy = jnp.logical_and(collision, 1 - x[3])
        done += collision_enemy

    # Loop over entities and move them in direction
    time_to_move = state.move_timer == 0
    move_timer = jax.lax.select(time_to_move, state.move_speed, state.move_timer)

    old_entities = entities
    for i in range(8):
        x = entities[i]
        slot_filled = x[4] != 0
        lr = x[2]
        # Update position left and right move
        x = x.at[0].set(jax.lax.select(slot_filled, x[0] + 1 * lr - 1 * (1 - lr), x[0]))

        # Update if entity moves out of the frame - reset everything to zeros
        outside_of_frame = jnp.logical_or(x[0] < 0, x[0] > 9)
        entities = jax.lax.select(
            time_to_move,
            entities.at[i].set(x * slot_filled * (1 - outside_of_frame)),
            old_entities,
        )

        # Update if entity moves into the player after its state is updated
        coords = jnp.logical_and(x[0] == state.player_x, x[1] == state.player_y)
        collision = jnp.logical_and(coords, slot_filled)
        # If collision with gold: empty gold and give positive reward
        collision_gold = jnp.logical_and(collision, x[3])
        reward += jax.lax.select(time_to_move, collision_gold, False) * 1
        entities = jax.lax.select(
            time_to_move,
            entities.at[i].set(entities[i] * (1 - collision_gold)),
            old_entities,
        )
        # If collision with enemy: terminate the episode
        collision_enemy = jnp.logical_and(collision, 1 - x[3])
        done += jax.lax.select(time_to_move, collision_enemy, False)
    return (
        state.replace(entities=entities, move_timer=move_timer),
        reward,
        bool(done > 0),  # expect: JIT401
    )


if __name__ == "__main__":
    state = EnvState(player_x=5, player_y=5, shot_timer=0, spawn_speed=10, spawn_timer=10,
                     move_speed=5, move_timer=0, ramp_timer=100, ramp_index=0,
                     entities=jnp.zeros((8, 5), dtype=jnp.int32), time=0, terminal=False)
    jax.jit(step_entities)(state)
