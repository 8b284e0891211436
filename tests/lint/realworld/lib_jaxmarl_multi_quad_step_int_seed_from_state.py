# source: https://github.com/FLAIROx/JaxMARL/commit/262fc43fe13322c02c4783e8ef1aae1a1fe64c93
#   (MultiQuadEnv.step in jaxmarl/environments/mabrax/multi_quad_env.py at the parent commit
#   ccfcb37, "try seeded random key"; 262fc43, "better noise key", replaces the Python `int`
#   seed with `jax.random.fold_in(noise_key, jp.int32(...))`)
# observed on jax 0.10.2 CPU: jax.jit(env.step), as brax's training loop runs it, raises
#   ConcretizationTypeError at `seed = int(pipeline_state.time * 1e6) + ...`: `int()` of the
#   traced simulation time (and of the traced sums of positions and velocities) has no value
#   while step is traced. Kept verbatim: jp_R_from_quat, jp_angle_between, MultiQuadEnv.step.
#   Stand-ins (brax, mujoco and the quadcopter XML are not used): the constructor sets the
#   attributes step reads (body ids, max thrust, target, max time, the system's `nu`);
#   pipeline_step advances the time and nudges the positions; _get_obs concatenates the
#   state with noise drawn from the key it is given; calc_reward returns the negative
#   payload distance; State and the MJX pipeline state are flax dataclasses with the fields
#   step reads.
# gap: other
from types import SimpleNamespace

from flax import struct
import jax
from jax import numpy as jp


@struct.dataclass
class PipelineState:
  # stand-in for brax's MJX pipeline state: the fields step and _get_obs read
  time: jax.Array
  xpos: jax.Array
  xquat: jax.Array
  cvel: jax.Array
  cacc: jax.Array


@struct.dataclass
class State:
  # stand-in for brax.envs.base.State
  pipeline_state: PipelineState
  obs: jax.Array
  reward: jax.Array
  done: jax.Array
  metrics: dict = struct.field(default_factory=dict)


# Helper functions in JAX (converted from numpy/numba)
def jp_R_from_quat(q: jp.ndarray) -> jp.ndarray:
  """Compute rotation matrix from quaternion [w, x, y, z]."""
  q = q / jp.linalg.norm(q)
  w, x, y, z = q[0], q[1], q[2], q[3]
  r1 = jp.array([1 - 2*(y*y + z*z), 2*(x*y - z*w), 2*(x*z + y*w)])
  r2 = jp.array([2*(x*y + z*w), 1 - 2*(x*x + z*z), 2*(y*z - x*w)])
  r3 = jp.array([2*(x*z - y*w), 2*(y*z + x*w), 1 - 2*(x*x + y*y)])
  return jp.stack([r1, r2, r3])

def jp_angle_between(v1: jp.ndarray, v2: jp.ndarray) -> jp.ndarray:
  """Computes the angle between two vectors."""
  norm1 = jp.linalg.norm(v1)
  norm2 = jp.linalg.norm(v2)
  dot = jp.dot(v1, v2)
  cos_theta = dot / (norm1 * norm2 + 1e-6)
  cos_theta = jp.clip(cos_theta, -1.0, 1.0)
  return jp.arccos(cos_theta)


class MultiQuadEnv:
  def __init__(self, episode_length: int = 3072, policy_freq: float = 250, obs_noise: float = 0.1):
    # stand-in: the attributes the original constructor sets from the MuJoCo model
    self.sys = SimpleNamespace(nu=8)
    self.time_per_action = 1.0 / policy_freq
    self.max_time = episode_length * self.time_per_action
    self.obs_noise = obs_noise
    self.max_thrust = 0.11772
    self.target_position = jp.array([0.0, 0.0, 1.5])
    self.payload_body_id = 1
    self.q1_body_id = 2
    self.q2_body_id = 3

  def pipeline_step(self, data, action):
    # stand-in for brax's MJX pipeline step
    lift = jp.concatenate([jp.zeros((1, 3)), jp.broadcast_to(jp.array([0.0, 0.0, 1e-3]), (3, 3))])
    return data.replace(time=data.time + self.time_per_action, xpos=data.xpos + lift * jp.sum(action))

  def _get_obs(self, data, last_action, target_position, noise_key):
    # stand-in: the state concatenated, plus observation noise drawn from noise_key
    obs = jp.concatenate([target_position - data.xpos[self.payload_body_id], data.xpos.ravel(),
                          data.cvel.ravel(), last_action, jp.zeros(1)])
    return obs + self.obs_noise * jax.random.normal(noise_key, shape=obs.shape)

  def calc_reward(self, obs, sim_time, collision, out_of_bounds, action,
                  angle_q1, angle_q2, last_action, target_position, data):
    # stand-in: the negative payload distance
    return -jp.linalg.norm(obs[:3]), None, {}

  def step(self, state: State, action: jax.Array) -> State:
    """Advances the environment by one control step.
    
    Args:
        state: The current state.
        action: The action to apply.
    
    Returns:
        The next state.
    """
    # Extract previous action from the observation.
    prev_last_action = state.obs[-(self.sys.nu+1):-1]
    # Scale actions from [-1, 1] to thrust commands in [0, max_thrust].
    thrust_cmds = 0.5 * (action + 1.0)
    action_scaled = thrust_cmds * self.max_thrust

    data0 = state.pipeline_state
    pipeline_state = self.pipeline_step(data0, action_scaled)

    # Compute orientation and collision/out-of-bound checks.
    q1_orientation = pipeline_state.xquat[self.q1_body_id]
    q2_orientation = pipeline_state.xquat[self.q2_body_id]
    up = jp.array([0.0, 0.0, 1.0])
    q1_local_up = jp_R_from_quat(q1_orientation)[:, 2]
    q2_local_up = jp_R_from_quat(q2_orientation)[:, 2]
    angle_q1 = jp_angle_between(q1_local_up, up)
    angle_q2 = jp_angle_between(q2_local_up, up)

    quad1_pos = pipeline_state.xpos[self.q1_body_id]
    quad2_pos = pipeline_state.xpos[self.q2_body_id]
    quad_distance = jp.linalg.norm(quad1_pos - quad2_pos)
    
    quad_collision = quad_distance < 0.15 # quad is square with 5cm so radius is 0.0707m

    ground_collision_quad = jp.logical_and(pipeline_state.xpos[self.q2_body_id][2] < 0.03, pipeline_state.xpos[self.q1_body_id][2] < 0.03)
    ground_collision_payload = pipeline_state.xpos[self.payload_body_id][2] < 0.03
    
    ground_collision = jp.logical_and(ground_collision_quad, ground_collision_payload)

    collision = jp.logical_or(quad_collision, ground_collision)

    out_of_bounds = jp.logical_or(jp.absolute(angle_q1) > jp.radians(90),
                                  jp.absolute(angle_q2) > jp.radians(90))
    out_of_bounds = jp.logical_or(out_of_bounds, pipeline_state.xpos[self.q1_body_id][2] < pipeline_state.xpos[self.payload_body_id][2]-0.05)
    out_of_bounds = jp.logical_or(out_of_bounds, pipeline_state.xpos[self.q2_body_id][2] < pipeline_state.xpos[self.payload_body_id][2]-0.05)



  
    #out of bounds for pos error shrinking with time
    payload_pos = pipeline_state.xpos[self.payload_body_id]
    payload_error = self.target_position - payload_pos
    payload_error_norm = jp.linalg.norm(payload_error)
    max_time_to_target = self.max_time * 0.75
    time_progress = jp.clip(pipeline_state.time / max_time_to_target, 0.0, 1.0)
    max_payload_error = 4 * (1 - time_progress) + 0.05 # allow for 5cm error at the target
    out_of_bounds = jp.logical_or(out_of_bounds, payload_error_norm > max_payload_error)



    # Generate a noise_key using pipeline_state fields.
    seed = int(pipeline_state.time * 1e6) + int(jp.sum(pipeline_state.xpos) * 1e3) + int(jp.sum(pipeline_state.cvel) * 1e3)  # expect: JIT401
    noise_key = jax.random.PRNGKey(seed)
    
    obs = self._get_obs(pipeline_state, prev_last_action, self.target_position, noise_key)
    reward, _, _ = self.calc_reward(
        obs, pipeline_state.time, collision, out_of_bounds, action_scaled,
        angle_q1, angle_q2, prev_last_action, self.target_position, pipeline_state
    )

    # dont terminate ground collision on ground start
    ground_collision = jp.logical_and(
      ground_collision,
      jp.logical_or(
        pipeline_state.time > 3,
        pipeline_state.cvel[self.payload_body_id][2] < -3.0,
      )
    )

    collision = jp.logical_or(quad_collision, ground_collision)
    
    done = jp.logical_or(jp.logical_or(out_of_bounds, collision),
                         pipeline_state.time > self.max_time*1.2) # this should never happen, because episode ends first
   
    
    done = done * 1.0

    metrics = {'time': pipeline_state.time, 'reward': reward}
    return state.replace(pipeline_state=pipeline_state, obs=obs, reward=reward, done=done, metrics=metrics)


if __name__ == "__main__":
  env = MultiQuadEnv()
  xpos = jp.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.3, 0.0, 0.8], [-0.3, 0.0, 0.8]])
  pipeline_state = PipelineState(time=jp.array(0.0), xpos=xpos,
                                 xquat=jp.tile(jp.array([1.0, 0.0, 0.0, 0.0]), (4, 1)),
                                 cvel=jp.zeros((4, 6)), cacc=jp.zeros((4, 6)))
  obs = jp.zeros(3 + 12 + 24 + env.sys.nu + 1)
  state = State(pipeline_state, obs, jp.array(0.0), jp.array(0.0))
  jit_step = jax.jit(env.step)
  state = jit_step(state, jp.zeros(env.sys.nu))
