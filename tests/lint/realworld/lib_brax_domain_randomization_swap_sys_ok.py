# source: https://github.com/google/brax/blob/10017d69eda8808419d9068c2f3a50c7dca59bd0/brax/envs/wrappers/training.py
#   (DomainRandomizationVmapWrapper after commit 10017d6, "Update
#   DomainRandomizationVmapWrapper (google#609)": env.sys is swapped in and back out in a
#   context manager. "This prevents the UnexpectedTracerError that would occur when
#   wrapping the same environment twice.")
# observed on jax 0.10.2 CPU: the jitted reset runs clean and, once it returns, the
#   wrapped environment's sys is the original concrete System again, not a tracer. Only
#   DomainRandomizationVmapWrapper is kept as brax wrote it, with brax's Wrapper base
#   class (brax/envs/base.py at the same commit); brax is not installed, so Env, State and System are minimal stand-ins, and a
#   one-field environment and a friction randomization_fn (after brax's domain
#   randomization tutorial) stand in for a real brax environment.
# gap: stale-state-attributes
from contextlib import contextmanager
from typing import Callable, Tuple, ContextManager

from flax import struct
import jax
import jax.numpy as jnp


@struct.dataclass
class System:
  # stand-in for brax.base.System
  friction: jax.Array


@struct.dataclass
class State:
  # stand-in for brax.envs.base.State
  obs: jax.Array
  reward: jax.Array


class Env:
  # stand-in for brax.envs.base.Env
  @property
  def unwrapped(self) -> 'Env':
    return self


class PointEnv(Env):
  # stand-in environment whose reset and step read self.sys
  def __init__(self):
    self.sys = System(friction=jnp.array(1.0))

  def reset(self, rng: jax.Array) -> State:
    obs = jax.random.normal(rng, (2,)) * self.sys.friction
    return State(obs=obs, reward=jnp.zeros(()))

  def step(self, state: State, action: jax.Array) -> State:
    obs = state.obs + action * self.sys.friction
    return State(obs=obs, reward=-jnp.sum(obs**2))


class Wrapper(Env):
  """Wraps an environment to allow modular transformations."""

  def __init__(self, env: Env):
    self.env = env

  def reset(self, rng: jax.Array) -> State:
    return self.env.reset(rng)

  def step(self, state: State, action: jax.Array) -> State:
    return self.env.step(state, action)

  @property
  def unwrapped(self) -> Env:
    return self.env.unwrapped

  def __getattr__(self, name):
    if name == '__setstate__':
      raise AttributeError(name)
    return getattr(self.env, name)


class DomainRandomizationVmapWrapper(Wrapper):
  """Wrapper for domain randomization."""

  def __init__(
      self,
      env: Env,
      randomization_fn: Callable[[System], Tuple[System, System]],
  ):
    super().__init__(env)
    self._sys_v, self._in_axes = randomization_fn(self.sys)

  @contextmanager
  def _swap_sys(self, new_sys)-> ContextManager[None]:
    env = self.env.unwrapped
    old_sys = env.sys
    env.sys = new_sys
    try:
      yield
    finally:
      env.sys = old_sys

  def reset(self, rng: jax.Array) -> State:
    def reset(sys, rng):
      with self._swap_sys(sys):
        out = self.env.reset(rng)
      return out

    state = jax.vmap(reset, in_axes=[self._in_axes, 0])(self._sys_v, rng)
    return state

  def step(self, state: State, action: jax.Array) -> State:
    def step(sys, s, a):
      with self._swap_sys(sys):
        out = self.env.step(s, a)
      return out

    res = jax.vmap(step, in_axes=[self._in_axes, 0, 0])(
        self._sys_v, state, action
    )
    return res


def domain_randomize(sys, rng):
  # stand-in randomization_fn: one friction per environment, batched on axis 0
  friction = jax.random.uniform(rng, (4,), minval=0.6, maxval=1.4)
  sys_v = sys.replace(friction=friction)
  in_axes = System(friction=0)
  return sys_v, in_axes


if __name__ == "__main__":
  base_env = PointEnv()
  env = DomainRandomizationVmapWrapper(
      base_env, lambda sys: domain_randomize(sys, jax.random.PRNGKey(1)))
  rngs = jax.random.split(jax.random.PRNGKey(0), 4)
  state = jax.jit(env.reset)(rngs)
  assert not isinstance(base_env.sys.friction, jax.core.Tracer), base_env.sys
  state = jax.jit(env.step)(state, jnp.ones((4, 2)))
  assert not isinstance(base_env.sys.friction, jax.core.Tracer), base_env.sys
