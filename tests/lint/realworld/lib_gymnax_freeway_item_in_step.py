# source: https://github.com/RobertTLange/gymnax/blob/88fef6978d3d9966828256bfc27f5489b57f7757/gymnax/environments/minatar/freeway.py
#   (step_agent before commit 0096e0e3, "fix: non-jittable code", which returns win_cond)
# observed on jax 0.10.2 CPU: step_agent under jax.jit raises ConcretizationTypeError at
#   `win_cond.item()` on the traced win condition. Only EnvState, EnvParams and step_agent
#   are kept; gymnax's base classes (environment.EnvState/EnvParams) are dropped and
#   `chex.Array` is spelled `jax.Array` (gymnax and chex are not installed). The jitted
#   call at the end stands in for the jitted env.step that reaches step_agent.
# gap: other
from typing import Tuple

from flax import struct
import jax
import jax.numpy as jnp


@struct.dataclass
class EnvState:
    pos: int
    cars: jax.Array
    move_timer: int
    time: int
    terminal: bool


@struct.dataclass
class EnvParams:
    player_speed: int = 3
    max_steps_in_episode: int = 2500


def step_agent(
    action: jnp.ndarray, state: EnvState, params: EnvParams
) -> Tuple[EnvState, jnp.ndarray, bool]:
    """Perform 1st part of step transition for agent."""
    cond_up = jnp.logical_and(action == 2, state.move_timer == 0)
    cond_down = jnp.logical_and(action == 4, state.move_timer == 0)
    any_cond = jnp.logical_or(cond_up, cond_down)
    state_up = jnp.maximum(0, state.pos - 1)
    state_down = jnp.minimum(9, state.pos + 1)
    pos = (1 - any_cond) * state.pos + cond_up * state_up + cond_down * state_down
    move_timer = jax.lax.select(any_cond, params.player_speed, state.move_timer)
    # Check win cond. - increase reward, randomize cars, reset agent position
    win_cond = pos == 0
    reward = win_cond * 1.0
    pos = jax.lax.select(win_cond, 9, pos)
    return state.replace(pos=pos, move_timer=move_timer), reward, win_cond.item()  # expect: JIT401


if __name__ == "__main__":
    state = EnvState(pos=9, cars=jnp.zeros((8, 4), dtype=jnp.int32), move_timer=0,
                     time=0, terminal=False)
    jax.jit(step_agent)(jnp.array(2), state, EnvParams())
