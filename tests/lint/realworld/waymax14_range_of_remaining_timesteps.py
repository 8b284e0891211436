# source: https://github.com/waymo-research/waymax/issues/14 (the maintainer's benchmark
#   snippet, and the traceback a user posted when running it)
# observed on jax 0.10.2 CPU: TracerIntegerConversionError at
#   `for _ in range(state.remaining_timesteps)`: the state is an argument of the jitted
#   function, so its remaining_timesteps is a traced value. waymax cannot be installed
#   here: SimulatorState, update_state_by_log and the scenario iterator are the smallest
#   stand-ins (a pytree with a traced timestep, a step that advances it, a list of two
#   scenarios); the config and dataloader lines of the snippet are left out.
# gap: types
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp


class SimulatorState(NamedTuple):  # stand-in for waymax.datatypes.SimulatorState
  timestep: jax.Array
  log_length: int = 91

  @property
  def remaining_timesteps(self):
    return self.log_length - 1 - self.timestep


class datatypes:  # stand-in for the waymax.datatypes module
  @staticmethod
  def update_state_by_log(state, num_steps):
    return state._replace(timestep=state.timestep + num_steps)


data_iter = iter([SimulatorState(jnp.array(10)), SimulatorState(jnp.array(20)), None])

scenario = next(data_iter)
start_time = time.time()

@jax.jit
def benchmark(state):
  for _ in range(state.remaining_timesteps):  # expect: JIT104
        state = datatypes.update_state_by_log(state, num_steps=1)
  return state

while scenario:
    state = scenario
    state = benchmark(state)
    print("remaining_timesteps: ", scenario.remaining_timesteps)
    scenario = next(data_iter)
    end_time = time.time()
    print("time cost: ", end_time - start_time)
    start_time = end_time
