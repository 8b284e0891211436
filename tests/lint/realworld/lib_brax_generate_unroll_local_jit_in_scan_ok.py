# source: https://github.com/google/brax/blob/0b96d056328d15ea7ebfd3ce07f42be72ec76e40/brax/training/acting.py
#   (actor_step and generate_unroll, which brax's PPO and SAC training steps call inside
#   their jitted/pmapped training step)
# observed on jax 0.10.2 CPU: generate_unroll jits a local function with
#   donate_argnums and hands it to lax.scan; called inside a jitted training step, it is
#   traced with that step, once: ten calls of the jitted step compile one program. The key
#   is split every scan step, so the sampled actions differ from step to step. actor_step
#   and generate_unroll are verbatim. Stand-ins (brax is not installed): Transition is
#   copied from brax/training/types.py, State is a flax dataclass with obs, reward, done and
#   info, the environment is a point mass whose step adds the action to the observation,
#   and the policy draws Gaussian actions from its key.
# gap: per-call-recompile
from typing import NamedTuple, Sequence, Tuple

from flax import struct
import jax
import jax.numpy as jnp

PRNGKey = jax.Array
Policy = object
Env = object


class Transition(NamedTuple):
  """Container for a transition."""

  observation: jax.Array
  action: jax.Array
  reward: jax.Array
  discount: jax.Array
  next_observation: jax.Array
  extras: jax.Array = ()  # pytype: disable=annotation-type-mismatch  # jax-ndarray


@struct.dataclass
class State:
  # stand-in for brax.envs.State
  obs: jax.Array
  reward: jax.Array
  done: jax.Array
  info: dict


class PointEnv:
  # stand-in environment: the action moves the observation
  def step(self, state, action):
    obs = state.obs + action
    return State(obs=obs, reward=-jnp.sum(obs**2, axis=-1), done=jnp.zeros(obs.shape[:-1]),
                 info=state.info)


def policy(obs, key):
  # stand-in policy: Gaussian actions, no extras
  return jax.random.normal(key, obs.shape), {}


def actor_step(
    env: Env,
    env_state: State,
    policy: Policy,
    key: PRNGKey,
    extra_fields: Sequence[str] = (),
) -> Tuple[State, Transition]:
  """Collect data."""
  actions, policy_extras = policy(env_state.obs, key)
  nstate = env.step(env_state, actions)
  state_extras = {x: nstate.info[x] for x in extra_fields}
  return nstate, Transition(  # pytype: disable=wrong-arg-types  # jax-ndarray
      observation=env_state.obs,
      action=actions,
      reward=nstate.reward,
      discount=1 - nstate.done,
      next_observation=nstate.obs,
      extras={'policy_extras': policy_extras, 'state_extras': state_extras},
  )


def generate_unroll(
    env: Env,
    env_state: State,
    policy: Policy,
    key: PRNGKey,
    unroll_length: int,
    extra_fields: Sequence[str] = (),
) -> Tuple[State, Transition]:
  """Collect trajectories of given unroll_length."""

  def f(carry, unused_t):
    state, current_key = carry
    current_key, next_key = jax.random.split(current_key)
    nstate, transition = actor_step(
        env, state, policy, current_key, extra_fields=extra_fields
    )
    return (nstate, next_key), transition

  f_jit = jax.jit(f, donate_argnums=(0,))
  (final_state, _), data = jax.lax.scan(
      f_jit, (env_state, key), (), length=unroll_length
  )
  return final_state, data


if __name__ == "__main__":
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, duration, **kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None)

  env = PointEnv()

  @jax.jit
  def training_step(env_state, key):
    key, unroll_key = jax.random.split(key)
    env_state, data = generate_unroll(env, env_state, policy, unroll_key, unroll_length=5)
    return env_state, data, key

  env_state = State(obs=jnp.zeros((4, 2)), reward=jnp.zeros(4), done=jnp.zeros(4), info={})
  key = jax.random.key(0)
  env_state, data, key = training_step(env_state, key)
  first = len(compiles)
  for _ in range(9):
    env_state, data, key = training_step(env_state, key)
  assert len(compiles) == first, (first, len(compiles))
  assert data.action.shape == (5, 4, 2)
  assert len({tuple(a.ravel().tolist()) for a in data.action}) == 5
