# source: https://github.com/jlin816/dynalang/issues/10
# observed on jax 0.10.2 CPU: runs clean. `jax.nn.one_hot(value, self.obs_space[key].high)`
#   with a 0-d NumPy array as num_classes raised "ValueError: Non-hashable static arguments
#   are not supported ... numpy.ndarray, 32100" in the report (the hacky fix wrapped it in
#   int()); on jax 0.10.2 one_hot turns the 0-d array into an int before its static argument
#   is hashed, so the jitted preprocess runs and gives 32100 classes.
#   Added: `Space` is the smallest stand-in for embodied.Space (a 0-d NumPy `high`, as
#   embodied broadcasts `high` to the space's shape ()), `Agent` keeps only `obs_space` and
#   `preprocess` (from dynalang/agent.py at commit 5206f9a682b6ef5bec9ee242c752aba3e551bf81),
#   `jaxutils.cast_to_compute` is replaced by `.astype(jnp.float32)`, and inputs.
# gap: static-hashability
import jax
import jax.numpy as jnp
import numpy as np


class Space:
  def __init__(self, dtype, shape, low, high):
    self.dtype = np.dtype(dtype)
    self.shape = shape
    self.low = np.broadcast_to(np.array(low, self.dtype), shape)
    self.high = np.broadcast_to(np.array(high, self.dtype), shape)


class Agent:

  def __init__(self, obs_space):
    self.obs_space = obs_space

  def preprocess(self, obs):
    obs = obs.copy()
    for key, value in obs.items():
      if key.startswith('log_') or key in ('key',):
        continue
      if key == "token":
        value = jax.nn.one_hot(value, self.obs_space[key].high)
      elif len(value.shape) > 3 and value.dtype == jnp.uint8:
        value = value.astype(jnp.float32) / 255.0
      else:
        value = value.astype(jnp.float32)
      obs[key] = value
    obs['cont'] = 1.0 - obs['is_terminal'].astype(jnp.float32)
    return obs


if __name__ == "__main__":
  obs_space = {
      'token': Space(np.uint32, (), 0, 32100),
      'image': Space(np.uint8, (8, 8, 3), 0, 255),
      'is_terminal': Space(bool, (), False, True),
  }
  agent = Agent(obs_space)
  obs = {
      'token': jnp.array([[5, 7]], jnp.uint32),
      'image': jnp.zeros((1, 2, 8, 8, 3), jnp.uint8),
      'is_terminal': jnp.array([[False, True]]),
  }
  out = jax.jit(agent.preprocess)(obs)
  assert out['token'].shape == (1, 2, 32100)
  assert float(out['token'][0, 0, 5]) == 1.0
  assert out['cont'].tolist() == [[1.0, 0.0]]
