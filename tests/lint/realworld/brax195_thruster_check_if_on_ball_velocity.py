# source: https://github.com/google/brax/pull/195
#   (brax/envs/thruster_check.py at commit 9b5293f of the pull request, "add action to metrics
#   so it's plottable, and cap piggy velocity at 1"; the next commit, 5ffd446 "fixing bad
#   bool", replaces the `if` with `jp.where(piggy_vel < 1.0, jp.float32(1), jp.float32(0))`)
# observed on jax 0.10.2 CPU: jax.jit(env.step), as brax's trainers run it, raises
#   TracerBoolConversionError at `if norm(state.qp.vel[0,:2]) > 1.0 :`, the velocity cap
#   on the traced ball velocity. Kept verbatim: ThrusterCheck.step, action_size and
#   _get_obs. Current spelling: `brax.jumpy` (removed from brax) is `jax.numpy` as `jp`, and
#   `brax.jumpy.safe_norm` is a stand-in norm of the same formula. Stand-ins (brax 0.0.x is
#   not installed): QP, Info and State as flax dataclasses with the fields step reads; the
#   system's `step` moves the three thrusted bodies for one `dt` and reports zero contact
#   velocities; the constructor (which builds the system from _SYSTEM_CONFIG) and reset are
#   left out, and `__main__` builds the four bodies' state directly.
# gap: other
from types import SimpleNamespace
from typing import Any, Dict

from flax import struct
import jax
from jax import numpy as jp


def norm(x, axis=None):
  # stand-in for brax.jumpy.safe_norm: the norm, with a gradient that is safe at zero
  is_zero = jp.allclose(x, 0.)
  x = jp.where(is_zero, jp.ones_like(x), x)
  n = jp.linalg.norm(x, axis=axis)
  return jp.where(is_zero, 0., n)


@struct.dataclass
class QP:
  # stand-in for brax.QP
  pos: jp.ndarray
  rot: jp.ndarray
  vel: jp.ndarray
  ang: jp.ndarray


@struct.dataclass
class Info:
  # stand-in for brax.Info: the contact velocities step reads
  contact: Any


@struct.dataclass
class State:
  # stand-in for brax.envs.env.State
  qp: QP
  obs: jp.ndarray
  reward: jp.ndarray
  done: jp.ndarray
  metrics: Dict[str, jp.ndarray] = struct.field(default_factory=dict)


# stand-ins for `import brax` and `from brax.envs import env`, which the annotations name
brax = SimpleNamespace(QP=QP, Info=Info)
env = SimpleNamespace(State=State)


class SystemStandIn:
  # stand-in for brax.System: dt and a thruster step for the piggy and the two players
  config = SimpleNamespace(dt=0.05)

  def step(self, qp, act):
    thrust = jp.concatenate([act.reshape(3, 3)[:, :2], jp.zeros((3, 1))], axis=-1)
    vel = qp.vel.at[1:4].add(thrust * self.config.dt)
    qp = qp.replace(pos=qp.pos + vel * self.config.dt, vel=vel)
    return qp, Info(contact=SimpleNamespace(vel=jp.zeros((5, 3))))


class ThrusterCheck:
  """"""

  def __init__(self):
    # stand-in: the original builds self.sys from _SYSTEM_CONFIG through brax's env.Env
    self.sys = SystemStandIn()

  def step(self, state: env.State, action: jp.ndarray) -> env.State:
    """Run one timestep of the environment's dynamics."""

    # Generating piggy action
    ball_pos_before = state.qp.pos[0,:2]
    piggy_pos_before = state.qp.pos[1,:2]
    vec_piggy_ball = ball_pos_before - piggy_pos_before
    piggy_ball_dist_before = norm(vec_piggy_ball)
    if norm(state.qp.vel[0,:2]) > 1.0 : # cap ball velocity at 1m/s  # expect: JIT101
      piggy_acc = 0.
    else:
      piggy_acc = 1. # base piggy acceleration (force/mass)
    vec_piggy_ball /= piggy_ball_dist_before
    piggy_acc *= vec_piggy_ball # vector of piggy acceleration

    # Update step 
    act = jp.concatenate([piggy_acc, jp.zeros(1), 
                          action[:2], jp.zeros(1), 
                          action[2:], jp.zeros(1)])
    qp, info = self.sys.step(state.qp, act)
    obs = self._get_obs(qp, info)

    #### REWARDS ####
    # convention: all terms positive, subtract terms labelled 'cost', add 'reward'
    # terms:
    #   `p1_ball_reward`, `p2_ball_reward`  : +ve rewards for players approaching ball
    #   `piggy_ball_reward`                 : +ve reward for piggy moving away from ball
    #   `piggy_touch_ball_cost`             : -ve cost for piggy touching ball, end episode
    #   `ctrl_cost`                         : -ve cost for control (input forces)
    #   `contact_cost`                      : -ve cost for contact
    #   `survive_reward`                    : +ve fixed reward for episode not ending

    # Each player move towards ball, small reward
    scale = 0.1
    p1_pos_before, p1_pos_after = state.qp.pos[2,:2], qp.pos[2,:2]
    p2_pos_before, p2_pos_after = state.qp.pos[3,:2], qp.pos[3,:2]
    ball_pos_after = qp.pos[0,:2]
    p1_ball_dist_before = norm(ball_pos_before - p1_pos_before)
    p1_ball_dist_after = norm(ball_pos_after - p1_pos_after)
    p2_ball_dist_before = norm(ball_pos_before - p2_pos_before)
    p2_ball_dist_after = norm(ball_pos_after - p2_pos_after)
    # +ve change, towards ball
    p1_ball_dist_change = (p1_ball_dist_before - p1_ball_dist_after) / self.sys.config.dt
    p2_ball_dist_change = (p2_ball_dist_before - p2_ball_dist_after) / self.sys.config.dt
    p1_ball_reward, p2_ball_reward = p1_ball_dist_change , p2_ball_dist_change
    p1_ball_reward *= scale
    p2_ball_reward *= scale

    # Ball move away from piggy, reward
    scale = 1.0
    piggy_pos_after = qp.pos[1,:2]
    piggy_ball_dist_after = norm(ball_pos_after - piggy_pos_after)
    # +ve means piggy is further away from ball
    piggy_ball_dist_change = (piggy_ball_dist_after - piggy_ball_dist_before) / self.sys.config.dt
    piggy_ball_reward = piggy_ball_dist_change * scale
    
    # Piggy reach ball, big cost, end episode
    scale = 100.
    eps = 1.05 # minimum distance between ball and piggy centres
    piggy_touch_ball_cost = (piggy_ball_dist_after < eps) * scale
    done = jp.where(piggy_ball_dist_after < eps, jp.float32(1), jp.float32(0)) # if, then, else

    # standard stuff -- contact cost, survive reward, control cost
    ctrl_cost = .5 * jp.sum(jp.square(action))
    contact_cost = (0.5 * 1e-3 *
                    jp.sum(jp.square(jp.clip(info.contact.vel, -1, 1))))
    survive_reward = jp.float32(1)

    # total reward
    reward = (p1_ball_reward + p2_ball_reward +
              piggy_ball_reward - piggy_touch_ball_cost - 
              ctrl_cost - contact_cost + survive_reward)

    state.metrics.update(
        p1_ball_reward=p1_ball_reward,
        p2_ball_reward=p2_ball_reward,
        piggy_ball_reward=piggy_ball_reward,
        piggy_touch_ball_cost=piggy_touch_ball_cost,
        ctrl_cost=ctrl_cost,
        contact_cost=contact_cost,
        survive_reward=survive_reward,
        action=action
    )

    return state.replace(qp=qp, obs=obs, reward=reward, done=done)

  @property
  def action_size(self):
    return 4

  def _get_obs(self, qp: brax.QP, info: brax.Info) -> jp.ndarray:
    """Observe ant body position and velocities."""

    #### OBSERVATIONS ####
    all_body_pos = qp.pos[:-1,:2].flatten() # x,y positions of both players, ball and piggy (8,)
    all_body_vel = qp.vel[:-1,:2].flatten() # x,y velocities of both players, ball and piggy (8,)
    ball_ang  = qp.ang[0]                   # ball angular velocities (3,)

    return jp.concatenate([all_body_pos] + [all_body_vel] + [ball_ang])


if __name__ == "__main__":
  thruster = ThrusterCheck()
  pos = jp.array([[0., 0., 0.5], [50., 0., 0.5], [0., 3., 0.5], [0., -3., 0.5], [0., 0., 0.]])
  qp = QP(pos=pos, rot=jp.tile(jp.array([1., 0., 0., 0.]), (5, 1)), vel=jp.zeros((5, 3)),
          ang=jp.zeros((5, 3)))
  zero = jp.zeros(())
  metrics = {k: zero for k in ('p1_ball_reward', 'p2_ball_reward', 'piggy_ball_reward',
                               'piggy_touch_ball_cost', 'ctrl_cost', 'contact_cost',
                               'survive_reward')}
  metrics['action'] = jp.zeros(thruster.action_size)
  state = State(qp, jp.zeros(19), zero, zero, metrics)
  jit_step = jax.jit(thruster.step)
  state = jit_step(state, jp.zeros(thruster.action_size))
