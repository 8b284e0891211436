# source: https://github.com/rishihahs/pupperv3-mjx/blob/9d57e174537f11f6c56a68575965d3be4fe71700/pupperv3_mjx/environment.py
#   (PupperV3Env; the second use of cmd_rng came with 44fded8 "add reward term for following
#   commanded body orientations" and is still there at 9d57e17)
# observed on jax 0.10.2 CPU: when the step counter passes resample_velocity_step, the jitted
#   step resamples the velocity command with sample_command(cmd_rng) and the body orientation
#   command with sample_body_orientation(cmd_rng), one key for both: split(cmd_rng, 3) gives
#   the same first two keys as split(cmd_rng, 6), so the pitch command is drawn with the
#   forward-velocity command's key and the roll command with the lateral-velocity command's
#   key. Every resampled orientation is a fixed function of the resampled velocity command
#   (the __main__ block predicts it from the command to 1e-5 over 64 environments); with a
#   typed key and jax_debug_key_reuse on, JAX raises KeyReuseError. Kept as written:
#   sample_command, sample_body_orientation, the attributes they read, reset's key handling
#   and command sampling, and step's key split and "State management" block. Cut (said
#   here): mjcf loading and the mujoco id lookups of __init__ (its arguments reduced to the
#   ones kept), reset's pipeline_init, qpos randomization and observation, and step's kick,
#   action latency, physics step, observation, contacts, rewards and metrics; done is a
#   stand-in `False` where step computed termination from the physics. Stand-ins (brax and
#   mujoco are not installed): State (a flax struct dataclass with brax's fields and
#   `replace`), brax.math's euler_to_quat and rotate (brax's formulas). maximum_pitch_command
#   and maximum_roll_command are 30 degrees in the __main__ block (the defaults are 0).
# gap: other
from typing import Any, Dict, Tuple

import flax.struct
import jax
import numpy as np
from jax import numpy as jp


@flax.struct.dataclass
class State:
    # stand-in for brax.envs.base.State
    pipeline_state: Any
    obs: jax.Array
    reward: jax.Array
    done: jax.Array
    metrics: Dict[str, jax.Array] = flax.struct.field(default_factory=dict)
    info: Dict[str, Any] = flax.struct.field(default_factory=dict)


class math:
    # stand-in for brax.math (the same formulas)
    @staticmethod
    def euler_to_quat(v):
        c1, c2, c3 = jp.cos(v * jp.pi / 360)
        s1, s2, s3 = jp.sin(v * jp.pi / 360)
        w = c1 * c2 * c3 - s1 * s2 * s3
        x = s1 * c2 * c3 + c1 * s2 * s3
        y = c1 * s2 * c3 - s1 * c2 * s3
        z = c1 * c2 * s3 + s1 * s2 * c3
        return jp.array([w, x, y, z])

    @staticmethod
    def rotate(vec, quat):
        s, u = quat[0], quat[1:]
        r = 2 * (jp.dot(u, vec) * u) + (s * s - jp.dot(u, u)) * vec
        r = r + 2 * s * jp.cross(u, vec)
        return r


class PupperV3Env:
    """Environment for training the Pupper V3 quadruped joystick policy in MJX."""

    def __init__(
        self,
        resample_velocity_step: int = 500,
        linear_velocity_x_range: Tuple[float, float] = (-0.75, 0.75),
        linear_velocity_y_range: Tuple[float, float] = (-0.5, 0.5),
        angular_velocity_range: Tuple[float, float] = (-2.0, 2.0),
        zero_command_probability: float = 0.01,
        stand_still_command_threshold: float = 0.1,
        maximum_pitch_command: float = 0.0,  # degrees
        maximum_roll_command: float = 0.0,  # degrees
        desired_world_z_in_body_frame: jax.Array = jp.array([0.0, 0.0, 1.0]),
    ):
        # training params
        self._linear_velocity_x_range = linear_velocity_x_range
        self._linear_velocity_y_range = linear_velocity_y_range
        self._angular_velocity_range = angular_velocity_range
        self._zero_command_probability = zero_command_probability
        self._stand_still_command_threshold = stand_still_command_threshold

        # command for body orientation
        self._maximum_pitch_command = maximum_pitch_command
        self._maximum_roll_command = maximum_roll_command

        self._resample_velocity_step = resample_velocity_step

        # desired orientation
        self._desired_world_z_in_body_frame = jp.array(desired_world_z_in_body_frame)

    def sample_command(self, rng: jax.Array) -> jax.Array:
        """
        Sample random command with desired linear and angular velocity ranges.
        With a probability of self._zero_command_probability, return a near-zero
        command to ensure enough training data with near-zero velocity command.
        """
        lin_vel_x = self._linear_velocity_x_range  # min max [m/s]
        lin_vel_y = self._linear_velocity_y_range  # min max [m/s]
        ang_vel_yaw = self._angular_velocity_range  # min max [rad/s]

        rng, key1, key2, key3, key4, key5 = jax.random.split(rng, 6)
        lin_vel_x = jax.random.uniform(key1, (1,), minval=lin_vel_x[0], maxval=lin_vel_x[1])
        lin_vel_y = jax.random.uniform(key2, (1,), minval=lin_vel_y[0], maxval=lin_vel_y[1])
        ang_vel_yaw = jax.random.uniform(key3, (1,), minval=ang_vel_yaw[0], maxval=ang_vel_yaw[1])
        new_cmd = jp.array([lin_vel_x[0], lin_vel_y[0], ang_vel_yaw[0]])

        # X% probability to return command near [0, 0, 0]
        zero_cmd_prob = jax.random.uniform(key4, (1,))
        noisy_near_zero_command = jax.random.uniform(
            key5,
            (3,),
            minval=-self._stand_still_command_threshold,
            maxval=self._stand_still_command_threshold,
        )
        new_cmd = jp.where(zero_cmd_prob < self._zero_command_probability, noisy_near_zero_command, new_cmd)

        return new_cmd

    def sample_body_orientation(self, rng: jax.Array) -> jax.Array:
        """
        Sample random orientation with desired_world_z_in_body_frame as the mean.
        """

        rng, key_pitch, key_roll = jax.random.split(rng, 3)  # tolerate: JIT502
        pitch = jax.random.uniform(key_pitch, (1,), minval=-1, maxval=1.0) * self._maximum_pitch_command
        roll = jax.random.uniform(key_roll, (1,), minval=-1, maxval=1.0) * self._maximum_roll_command
        # rotate the z unit vector by pitch and roll
        # euler_to_quat uses x-y'-z'' intrinsic convention so use roll, pitch, yaw
        euler_rotation = math.euler_to_quat(jp.array([roll[0], pitch[0], 0.0]))
        desired_world_z_in_body_frame = math.rotate(self._desired_world_z_in_body_frame, euler_rotation)
        return desired_world_z_in_body_frame

    def reset(self, rng: jax.Array) -> State:  # pytype: disable=signature-mismatch
        rng, sample_command_key, sample_orientation_key, randomize_pos_key = jax.random.split(rng, 4)

        state_info = {
            "rng": rng,
            "last_act": jp.zeros(12, dtype=float),
            "command": self.sample_command(sample_command_key),
            "step": 0,
            "desired_world_z_in_body_frame": self.sample_body_orientation(sample_orientation_key),
        }

        obs = jp.zeros(36)  # stand-in: the observation history of the repository
        reward, done = jp.zeros(2, dtype=float)
        metrics = {"total_dist": 0.0}
        state = State(None, obs, reward, done, metrics, state_info)  # pytype: disable=wrong-arg-types

        return state

    def step(self, state: State, action: jax.Array) -> State:  # pytype: disable=signature-mismatch
        state.info["rng"], cmd_rng, kick_noise_2, kick_bernoulli, latency_key = jax.random.split(state.info["rng"], 5)

        done = jp.zeros((), dtype=bool)  # stand-in for the termination test on the physics

        # State management
        state.info["last_act"] = action
        state.info["step"] += 1

        # Sample new command if more than 500 timesteps achieved
        state.info["command"] = jp.where(
            state.info["step"] > self._resample_velocity_step,
            self.sample_command(cmd_rng),
            state.info["command"],
        )

        # Resample new desired body orientation
        state.info["desired_world_z_in_body_frame"] = jp.where(
            state.info["step"] > self._resample_velocity_step,
            self.sample_body_orientation(cmd_rng),  # expect: JIT502
            state.info["desired_world_z_in_body_frame"],
        )

        # Reset the step counter when done
        state.info["step"] = jp.where(
            done | (state.info["step"] > self._resample_velocity_step),
            0,
            state.info["step"],
        )

        done = jp.float32(done)
        state = state.replace(done=done)
        return state


if __name__ == "__main__":
    env = PupperV3Env(maximum_pitch_command=30.0, maximum_roll_command=30.0)
    jit_reset = jax.jit(jax.vmap(env.reset))
    jit_step = jax.jit(jax.vmap(env.step))

    states = jit_reset(jax.random.split(jax.random.PRNGKey(0), 64))
    # put every environment at the last step before the resampling, as 500 steps would
    states.info["step"] = jp.full(64, env._resample_velocity_step)
    states = jit_step(states, jp.zeros((64, 12)))

    cmd = np.asarray(states.info["command"])
    orientation = np.asarray(states.info["desired_world_z_in_body_frame"])
    assert (np.asarray(states.info["step"]) == 0).all()  # every environment resampled

    # predict each orientation from the velocity command alone: the pitch uniform is the
    # forward-velocity uniform, the roll uniform the lateral-velocity uniform
    lo_x, hi_x = env._linear_velocity_x_range
    lo_y, hi_y = env._linear_velocity_y_range
    u_pitch = (cmd[:, 0] - lo_x) / (hi_x - lo_x)
    u_roll = (cmd[:, 1] - lo_y) / (hi_y - lo_y)
    pitch = (u_pitch * 2 - 1) * env._maximum_pitch_command
    roll = (u_roll * 2 - 1) * env._maximum_roll_command
    predicted = np.stack([
        np.asarray(math.rotate(env._desired_world_z_in_body_frame, math.euler_to_quat(jp.array([r, p, 0.0]))))
        for r, p in zip(roll, pitch)
    ])
    not_zeroed = np.abs(cmd).max(axis=1) > env._stand_still_command_threshold
    print("environments with a resampled (non-zero) command:", not_zeroed.sum())
    print("max |orientation - predicted from the command|:", np.abs(orientation - predicted)[not_zeroed].max())
    # observed: line 171 hands sample_body_orientation the cmd_rng that sample_command just
    # split: every resampled orientation follows from the velocity command
    assert not_zeroed.sum() >= 60
    np.testing.assert_allclose(orientation[not_zeroed], predicted[not_zeroed], atol=1e-5)
    # and the orientations do vary (the commands are not constant)
    assert orientation[:, 0].std() > 0.05
