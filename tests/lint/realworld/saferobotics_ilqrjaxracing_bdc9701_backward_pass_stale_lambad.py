# source: https://github.com/SafeRoboticsLab/iLQR_jax_racing/blob/bdc97019c1a3c79c46bd7166bb1be5662bb7268b/iLQR/ilqr.py (with iLQR/dynamics.py at the same commit)
# observed on jax 0.10.2 CPU: iLQR.backward_pass_jax is jitted with a static `self` and reads
#   the Levenberg-Marquardt regulariser `self.lambad` (line 467) at trace time; `solve`
#   shrinks it after every accepted step (`self.lambad *= 0.7`, floored at lambad_min), but the
#   compiled backward pass keeps the value of its first trace (10): after a solve has brought
#   lambad down, the gains it returns equal those of a solver with lambad = 10 and differ
#   from those of a fresh solver with the current lambad (silent, stale regularisation).
#   Kept: the iLQR class (iLQR/ilqr.py) and the Dynamics class (iLQR/dynamics.py) as written,
#   merged into one file. Changed: `from jaxlib.xla_extension import ArrayImpl` ->
#   `ArrayImpl = jax.Array` (jaxlib.xla_extension is gone). Added: a stand-in quadratic
#   tracking Cost with the repository's interface (the real iLQR/cost.py is 547 lines of
#   racing costs and soft constraints), a stand-in straight-track ref_path with
#   get_closest_pts, a small config, and the __main__ block.
# gap: stale-state-attributes
import time
from types import SimpleNamespace
from typing import Optional, Tuple

import numpy as np

from functools import partial
import jax
from jax import jit, jacfwd, lax
import jax.numpy as jnp

ArrayImpl = jax.Array


class Dynamics:

  def __init__(self, config):
    self.dim_x = 4
    self.dim_u = 2

    self.T = config.T  # Planning Time Horizon
    self.N = config.N  # number of planning steps
    self.dt = self.T / (self.N - 1)  # time step for each planning step

    self.wheelbase = config.WHEELBASE  # vehicle chassis length
    self.delta_min = config.DELTA_MIN  # min steering angle rad
    self.delta_max = config.DELTA_MAX  # max steering angle rad
    self.a_min = config.A_MIN  # min longitudial accel
    self.a_max = config.A_MAX  # max longitudial accel
    self.v_min = config.V_MIN  # min velocity
    self.v_max = config.V_MAX  # max velocity

    # Useful constants.
    self.zeros = np.zeros((self.N))
    self.ones = np.ones((self.N))

    # Computes Jacobian matrices using Jax.
    self.jac_f = jit(jacfwd(self.dct_time_dyn, argnums=[0, 1]))

    # Vectorizes Jacobians using Jax.
    self.jac_f = jit(jax.vmap(self.jac_f, in_axes=(1, 1), out_axes=(2, 2)))

  def forward_step(
      self, state: np.ndarray, control: np.ndarray, step: Optional[int] = 1,
      noise: Optional[np.ndarray] = None, noise_type: Optional[str] = 'unif'
  ) -> Tuple[np.ndarray, np.ndarray]:
    """
    Finds the next state of the vehicle given the current state and
    control input state.

    Args:
        state (np.ndarray): (4, ) array [X, Y, V, psi].
        control (np.ndarray): (2, ) array [a, delta].
        step (int, optional): The number of segements to forward the
            dynamics. Defaults to 1.
        noise (np.ndarray, optional): The ball radius or standard
            deviation of the Gaussian noise. The magnitude should be in the
            sense of self.dt. Defaults to None.
        noise_type(str, optional): Uniform or Gaussian. Defaults to 'unif'.

    Returns:
        np.ndarray: next state.
        np.ndarray: clipped control.
    """
    # Clips the controller values between min and max accel and steer values.
    accel = np.clip(control[0], self.a_min, self.a_max)
    delta = np.clip(control[1], self.delta_min, self.delta_max)
    control_clip = np.array([accel, delta])
    next_state = state
    dt_step = self.dt / step

    for _ in range(step):
      # State: [x, y, v, psi]
      d_x = ((next_state[2] * dt_step + 0.5 * accel * dt_step**2) * np.cos(next_state[3]))
      d_y = ((next_state[2] * dt_step + 0.5 * accel * dt_step**2) * np.sin(next_state[3]))
      d_v = accel * dt_step
      d_psi = ((next_state[2] * dt_step + 0.5 * accel * dt_step**2) * np.tan(delta)
               / self.wheelbase)
      next_state = next_state + np.array([d_x, d_y, d_v, d_psi])
      if noise is not None:
        T = np.array([[np.cos(next_state[-1]), np.sin(next_state[-1]), 0, 0],
                      [-np.sin(next_state[-1]),
                       np.cos(next_state[-1]), 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        if noise_type == 'unif':
          rv = np.random.rand(4) - 0.5
        else:
          rv = np.random.normal(size=(4))
        next_state = next_state + (T@noise) * rv / step

      # Clip the velocity.
      next_state[2] = np.clip(next_state[2], 0, None)

    return next_state, control_clip

  # ---------------------------- Jitted functions ------------------------------
  @partial(jit, static_argnums=(0,))
  def dct_time_dyn(self, state: ArrayImpl, control: ArrayImpl) -> ArrayImpl:
    """
    Computes the one-step time evolution of the system.

    Args:
        state (ArrayImpl): (4,) jnp array [x, y, v, psi].
        control (ArrayImpl): (2,) jnp array [a, delta].

    Returns:
        ArrayImpl: next state.
    """
    d_x = ((state[2] * self.dt + 0.5 * control[0] * self.dt**2) * jnp.cos(state[3]))
    d_y = ((state[2] * self.dt + 0.5 * control[0] * self.dt**2) * jnp.sin(state[3]))
    d_v = control[0] * self.dt
    d_psi = ((state[2] * self.dt + 0.5 * control[0] * self.dt**2) * jnp.tan(control[1])
             / self.wheelbase)
    return state + jnp.hstack((d_x, d_y, d_v, d_psi))

  @partial(jit, static_argnums=(0,))
  def integrate_forward_jax(self, state: ArrayImpl,
                            control: ArrayImpl) -> Tuple[ArrayImpl, ArrayImpl]:
    """
    Computes the next state.

    Args:
        state (ArrayImpl): (4,) jnp array [x, y, v, psi].
        control (ArrayImpl): (2,) jnp array [a, delta].

    Returns:
        state_next: ArrayImpl
        control_next: ArrayImpl
    """
    # Clips the control values with their limits.
    accel = jnp.clip(control[0], self.a_min, self.a_max)
    delta = jnp.clip(control[1], self.delta_min, self.delta_max)

    # Integrates the system one-step forward in time using the Euler method.
    control_clip = jnp.hstack((accel, delta))
    state_next = self.dct_time_dyn(state, control_clip)

    return state_next, control_clip

  @partial(jit, static_argnums=(0,))
  def get_AB_matrix_jax(self, nominal_states: ArrayImpl,
                        nominal_controls: ArrayImpl) -> Tuple[ArrayImpl, ArrayImpl]:
    """
      Returns the linearized 'A' and 'B' matrix of the ego vehicle around
      nominal states and controls.

      Args:
          nominal_states (ArrayImpl): (nx, N) states along the nominal traj.
          nominal_controls (ArrayImpl): (nu, N) controls along the traj.

      Returns:
          ArrayImpl: the Jacobian of next state w.r.t. the current state.
          ArrayImpl: the Jacobian of next state w.r.t. the current control.
      """
    A, B = self.jac_f(nominal_states, nominal_controls)
    return A, B


# --- stand-in for iLQR/cost.py: quadratic tracking of a reference speed along the track ---
class Cost:

  def __init__(self, config, safety=True):
    self.safety = safety
    self.v_ref = config.V_REF
    self.W_state = np.diag([0.0, 1.0, 4.0, 0.0])  # lateral error (x), speed
    self.W_control = np.diag([0.1, 0.1])
    self.jac_x = jax.vmap(jax.grad(self._stage, argnums=0), in_axes=(1, 1, 1), out_axes=1)
    self.jac_u = jax.vmap(jax.grad(self._stage, argnums=1), in_axes=(1, 1, 1), out_axes=1)
    self.hess_xx = jax.vmap(jax.hessian(self._stage, argnums=0), in_axes=(1, 1, 1), out_axes=2)
    self.hess_uu = jax.vmap(jax.hessian(self._stage, argnums=1), in_axes=(1, 1, 1), out_axes=2)

  def _stage(self, x, u, pt):
    err = jnp.array([x[0] - pt[0], 0.0, x[2] - self.v_ref, 0.0])
    return err @ jnp.asarray(self.W_state) @ err + u @ jnp.asarray(self.W_control) @ u

  def update_obs(self, frs_list):
    pass

  def get_cost(self, states, controls, closest_pts, slope, theta):
    err = states.copy()
    err[0] -= closest_pts[0]
    err[1] = 0.0
    err[2] -= self.v_ref
    err[3] = 0.0
    c_state = np.einsum('an,ab,bn->n', err, self.W_state, err)
    c_control = np.einsum('an,ab,bn->n', controls, self.W_control, controls)
    return float(np.sum(c_state + c_control))

  def get_derivatives_jax(self, states, controls, closest_pts, slopes):
    states, controls, closest_pts = map(jnp.asarray, (states, controls, closest_pts))
    q = self.jac_x(states, controls, closest_pts)
    Q = self.hess_xx(states, controls, closest_pts)
    r = self.jac_u(states, controls, closest_pts)
    R = self.hess_uu(states, controls, closest_pts)
    S = jnp.zeros((2, 4, states.shape[1]))
    return q, Q, r, R, S


class iLQR():

  def __init__(self, ref_path, config, safety=True):

    self.T = config.T
    self.N = config.N

    self.ref_path = ref_path

    self.steps = config.MAX_ITER

    self.tol = 1e-2
    self.lambad = 10
    self.lambad_max = 100
    self.lambad_min = 1e-3

    self.dynamics = Dynamics(config)
    self.alphas = 1.1**(-np.arange(10)**2)

    self.dim_x = self.dynamics.dim_x
    self.dim_u = self.dynamics.dim_u

    self.cost = Cost(config, safety)

  def forward_pass(
      self, nominal_states: ArrayImpl, nominal_controls: ArrayImpl, Ks: ArrayImpl, ks: ArrayImpl,
      alpha: float
  ) -> Tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray, np.ndarray]:
    """
    Forward pass wrapper.
    Calls forward_pass_jax to speed up computation.

    Args:
        nominal_states (ArrayImpl): (dim_x, N)
        nominal_controls (ArrayImpl): (dim_u, N)
        Ks (ArrayImpl): gain matrices (dim_u, dim_x, N - 1)
        ks (ArrayImpl): gain vectors (dim_u, N - 1)
        alpha (float): scalar parameter

    Returns:
        X (np.ndarray): (dim_x, N)
        U (np.ndarray): (dim_u, N)
        J (float): total cost.
        closest_pts (np.ndarray): 2xN array of each state's closest point [x,y]
            on the track.
        slope (np.ndarray): 1xN array of track's slopes (rad) at closest
            points.
        theta (np.ndarray): 1xN array of the progress at each state.
    """
    Xs, Us = self.forward_pass_jax(nominal_states, nominal_controls, Ks, ks, alpha)
    Xs = np.asarray(Xs)
    Us = np.asarray(Us)

    closest_pt, slope, theta = self.ref_path.get_closest_pts(Xs[:2, :])
    J = self.cost.get_cost(Xs, Us, closest_pt, slope, theta)
    return Xs, Us, J, closest_pt, slope, theta

  def backward_pass(
      self, nominal_states: ArrayImpl, nominal_controls: ArrayImpl, closest_pts: ArrayImpl,
      slopes: ArrayImpl
  ) -> Tuple[np.ndarray, np.ndarray]:
    """
    Backward pass wrapper.
    Calls get_AB_matrix_jax and backward_pass_jax to speed up computation.

    Args:
        nominal_states (ArrayImpl): (dim_x, N)
        nominal_controls (ArrayImpl): (dim_u, N)
        closest_pts (ArrayImpl): (2, N)
        slopes (ArrayImpl): (1, N)

    Returns:
        Ks (np.ndarray): gain matrices (dim_u, dim_x, N - 1)
        ks (np.ndarray): gain vectors (dim_u, N - 1)
    """
    # t0 = time.time()
    L_x, L_xx, L_u, L_uu, L_ux = self.cost.get_derivatives_jax(
        nominal_states, nominal_controls, closest_pts, slopes
    )
    fx, fu = self.dynamics.get_AB_matrix_jax(nominal_states, nominal_controls)
    Ks, ks = self.backward_pass_jax(L_x, L_xx, L_u, L_uu, L_ux, fx, fu)
    # print("backward pass use: ", time.time()-t0)
    return np.asarray(Ks), np.asarray(ks)

  def solve(
      self, cur_state: np.ndarray, controls: np.ndarray = None, obs_list: list = [],
      record: bool = False
  ) -> Tuple[np.ndarray, np.ndarray, float, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """
    Solves the iLQR problem.

    Args:
        cur_state (np.ndarray): (dim_x,)
        controls (np.ndarray, optional): (self.dim_u,). Defaults to None.
        obs_list (list, optional): obstacle list. Defaults to [].
        record (bool, optional): Defaults to False.

    Returns:
        states: np.ndarray
        controls: np.ndarray
        t_process: float
        status: int
        theta: np.ndarray
        Ks: np.ndarray
        fx: np.ndarray
        fu: np.ndarray
    """
    status = 0

    time0 = time.time()

    if controls is None:
      controls = np.zeros((self.dim_u, self.N))
    states = np.zeros((self.dim_x, self.N))
    states[:, 0] = cur_state

    for i in range(1, self.N):
      states[:, i], _ = self.dynamics.forward_step(states[:, i - 1], controls[:, i - 1])
    closest_pt, slope, theta = self.ref_path.get_closest_pts(states[:2, :])

    self.cost.update_obs(obs_list)

    J = self.cost.get_cost(states, controls, closest_pt, slope, theta)

    converged = False

    for i in range(self.steps):
      slope = slope[np.newaxis, :]
      Ks, ks = self.backward_pass(states, controls, closest_pt, slope)

      updated = False
      for alpha in self.alphas:
        X_new, U_new, J_new, closest_pt_new, slope_new, theta_new = (
            self.forward_pass(states, controls, Ks, ks, alpha)
        )
        if J_new <= J:
          if np.abs((J-J_new) / J) < self.tol:
            converged = True
          J = J_new
          states = X_new
          controls = U_new
          closest_pt = closest_pt_new
          slope = slope_new
          theta = theta_new
          updated = True
          break
      if updated:
        self.lambad *= 0.7
      else:
        status = 2
        break
      self.lambad = max(self.lambad_min, self.lambad)

      if converged:
        status = 1
        break
    t_process = time.time() - time0

    if record:
      Ks, _ = self.backward_pass_jax(states, controls, closest_pt, slope)
      fx, fu = self.dynamics.get_AB_matrix_jax(states, controls)
    else:
      Ks = None
      fx = None
      fu = None
    return states, controls, t_process, status, theta, Ks, fx, fu

  # ----------------------------- Jitted functions -----------------------------
  @partial(jit, static_argnums=(0,))
  def forward_pass_jax(
      self, nominal_states: ArrayImpl, nominal_controls: ArrayImpl, Ks: ArrayImpl, ks: ArrayImpl,
      alpha: float
  ) -> Tuple[ArrayImpl, ArrayImpl]:
    """
    Jitted forward pass looped computation.

    Args:
        nominal_states (ArrayImpl): (dim_x, N)
        nominal_controls (ArrayImpl): (dim_u, N)
        Ks (ArrayImpl): gain matrices (dim_u, dim_x, N - 1)
        ks (ArrayImpl): gain vectors (dim_u, N - 1)
        alpha (float): scalar parameter

    Returns:
        Xs (ArrayImpl): (dim_x, N)
        Us (ArrayImpl): (dim_u, N)
    """

    @jit
    def forward_pass_looper(i, _carry):
      Xs, Us = _carry
      u = (
          nominal_controls[:, i] + alpha * ks[:, i]
          + Ks[:, :, i] @ (Xs[:, i] - nominal_states[:, i])
      )
      X_next, U_next = self.dynamics.integrate_forward_jax(Xs[:, i], u)
      Xs = Xs.at[:, i + 1].set(X_next)
      Us = Us.at[:, i].set(U_next)
      return Xs, Us

    Xs = jnp.zeros((self.dim_x, self.N))
    Us = jnp.zeros((self.dim_u, self.N))
    Xs = Xs.at[:, 0].set(nominal_states[:, 0])
    Xs, Us = lax.fori_loop(0, self.N - 1, forward_pass_looper, (Xs, Us))
    return Xs, Us

  @partial(jit, static_argnums=(0,))
  def backward_pass_jax(
      self, L_x: ArrayImpl, L_xx: ArrayImpl, L_u: ArrayImpl, L_uu: ArrayImpl, L_ux: ArrayImpl,
      fx: ArrayImpl, fu: ArrayImpl
  ) -> Tuple[ArrayImpl, ArrayImpl]:
    """
    Jitted backward pass looped computation.

    Args:
        L_x (ArrayImpl): (dim_x, N)
        L_xx (ArrayImpl): (dim_x, dim_x, N)
        L_u (ArrayImpl): (dim_u, N)
        L_uu (ArrayImpl): (dim_u, dim_u, N)
        L_ux (ArrayImpl): (dim_u, dim_x, N)
        fx (ArrayImpl): (dim_x, dim_x, N)
        fu (ArrayImpl): (dim_x, dim_u, N)

    Returns:
        Ks (ArrayImpl): gain matrices (dim_u, dim_x, N - 1)
        ks (ArrayImpl): gain vectors (dim_u, N - 1)
    """

    @jit
    def backward_pass_looper(i, _carry):
      V_x, V_xx, ks, Ks = _carry
      n = self.N - 2 - i

      Q_x = L_x[:, n] + fx[:, :, n].T @ V_x
      Q_u = L_u[:, n] + fu[:, :, n].T @ V_x
      Q_xx = L_xx[:, :, n] + fx[:, :, n].T @ V_xx @ fx[:, :, n]
      Q_ux = L_ux[:, :, n] + fu[:, :, n].T @ V_xx @ fx[:, :, n]
      Q_uu = L_uu[:, :, n] + fu[:, :, n].T @ V_xx @ fu[:, :, n]

      Q_uu_inv = jnp.linalg.inv(Q_uu + reg_mat)

      Ks = Ks.at[:, :, n].set(-Q_uu_inv @ Q_ux)
      ks = ks.at[:, n].set(-Q_uu_inv @ Q_u)

      V_x = Q_x - Ks[:, :, n].T @ Q_uu @ ks[:, n]
      V_xx = Q_xx - Ks[:, :, n].T @ Q_uu @ Ks[:, :, n]

      return V_x, V_xx, ks, Ks

    Ks = jnp.zeros((self.dim_u, self.dim_x, self.N - 1))
    ks = jnp.zeros((self.dim_u, self.N - 1))

    V_x = L_x[:, -1]
    V_xx = L_xx[:, :, -1]

    reg_mat = self.lambad * jnp.eye(self.dim_u)  # expect: JIT201

    V_x, V_xx, ks, Ks = lax.fori_loop(0, self.N - 1, backward_pass_looper, (V_x, V_xx, ks, Ks))
    return Ks, ks


# --- stand-in for the track (iLQR/track.py): the straight centre line x = 0 ---
class StraightTrack:

  def get_closest_pts(self, points):
    closest = np.stack([np.zeros(points.shape[1]), points[1]])
    slope = np.full(points.shape[1], np.pi / 2)
    theta = points[1].copy()
    return closest, slope, theta


def make_config():
  return SimpleNamespace(
      T=1.0, N=11, MAX_ITER=20, WHEELBASE=0.257, DELTA_MIN=-0.35, DELTA_MAX=0.35,
      A_MIN=-3.5, A_MAX=3.5, V_MIN=0.0, V_MAX=1.0, V_REF=1.0
  )


if __name__ == "__main__":
  config = make_config()
  solver = iLQR(StraightTrack(), config, safety=False)
  x_cur = np.array([0.3, 0.0, 0.0, np.pi / 2])
  states, controls, t_process, status, theta, _, _, _ = solver.solve(x_cur)
  print("status", status, "lambad after solve", solver.lambad)
  assert solver.lambad < 10

  # the derivatives of a nominal trajectory, as backward_pass computes them
  closest_pt, slope, _ = solver.ref_path.get_closest_pts(states[:2, :])
  args = solver.cost.get_derivatives_jax(states, controls, closest_pt, slope[np.newaxis, :])
  args = args + solver.dynamics.get_AB_matrix_jax(states, controls)

  Ks_stale, ks_stale = solver.backward_pass_jax(*args)

  current = iLQR(StraightTrack(), config, safety=False)
  current.lambad = solver.lambad
  Ks_now, ks_now = current.backward_pass_jax(*args)

  initial = iLQR(StraightTrack(), config, safety=False)  # lambad = 10, as at the first trace
  Ks_init, ks_init = initial.backward_pass_jax(*args)

  # observed: line 467 the compiled backward pass still regularises with lambad = 10
  assert np.allclose(Ks_stale, Ks_init) and np.allclose(ks_stale, ks_init)
  assert not np.allclose(ks_stale, ks_now)
  print("stale ks", np.asarray(ks_stale)[:, 0], "with current lambad", np.asarray(ks_now)[:, 0])
