# source: https://github.com/tud-phi/soromox/blob/de642eb30fdff5302a7bccae495b521366ccadde/src/soromox/systems/dynamical_system.py
# observed on jax 0.10.2 CPU: the fixed rollout_discrete_closed_loop_to (tud-phi/soromox#56,
#   fixing issue #54) checks duration/control_dt/save_dt as Python floats, counts the steps
#   with int(round(...)) and slices a regular grid, so jax.jit of a loss over the initial
#   state, jax.jit(jax.vmap(...)) over initial configurations and jax.grad over the PID gain
#   all run clean. The library module at the fix commit, with the methods this rollout does
#   not use left out; SystemState is soromox's (systems/system_state.py) inlined; Pendulum is
#   a stand-in (two independent damped joints), PIDController and the __main__ block are the
#   three tests added in tud-phi/soromox commit 03f0467.
# gap: exemption-vs-JAX

import math
import warnings
from dataclasses import dataclass
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax

# Diffrax (for time integration helpers)
from diffrax import (
    AbstractSolver,
    AbstractStepSizeController,
    ConstantStepSize,
    ODETerm,
    SaveAt,
    Tsit5,
    diffeqsolve,
)
from jax import Array, lax, vmap
from jax import numpy as jnp

@jax.tree_util.register_pytree_node_class
@dataclass
class SystemState:
    """
    Container for the system state and optional controller state.

    Attributes:
        t: Current simulation time.
        y: Robot state vector, typically concatenated configuration and velocity.
        u: Actuation input applied at the current time.
        control_state: Additional controller state as a PyTree (e.g., integrator terms).
    """

    t: Array
    y: Array
    u: Array | None = None
    control_state: Any | None = None

    def tree_flatten(self):
        children = [self.t, self.y]
        aux = {
            "has_u": self.u is not None,
            "has_control_state": self.control_state is not None,
        }
        if self.u is not None:
            children.append(self.u)
        if self.control_state is not None:
            children.append(self.control_state)
        return tuple(children), aux

    @classmethod
    def tree_unflatten(cls, aux, children):
        t, y, *rest = children
        idx = 0
        u = rest[idx] if aux["has_u"] else None
        if aux["has_u"]:
            idx += 1
        control_state = rest[idx] if aux["has_control_state"] else None
        return cls(t=t, y=y, u=u, control_state=control_state)


class DynamicalSystem(eqx.Module):
    num_dofs: int = eqx.field(static=True)  # Number of degrees of freedom
    num_actuators: int = eqx.field(static=True)  # Number of actuators

    @abstractmethod
    def forward_dynamics(
        self, t: Array, y: Array, actuation_args: tuple | None = None
    ) -> Array:
        """
        Compute the forward dynamics of the system.

        This method computes the state derivative yd = [qd, qdd] given the
        current time, state, and actuation inputs.

        Args:
            t (Array): Current time.
            y (Array): State vector containing configuration and velocity.
            actuation_args (Optional[Tuple]): Tuple of actuation inputs, typically (u, tau_ext) where
                u is the control input and tau_ext is the external force/torque.

        Returns:
            yd (Array): State derivative yd with the same shape as y.
        """
        ...

    @staticmethod
    def _compute_save_times(
        t0: float | Array,
        t1: float | Array,
        solver_dt: float | Array,
        save_dt: float | Array | None,
        save_ts: Array | None = None,
    ) -> Array:
        """Build the array of time stamps to save during integration."""
        if save_ts is not None:
            return save_ts

        assert save_dt is not None, "Either save_ts or save_dt must be provided."
        assert save_dt > 0.0, "save_dt must be positive."
        assert save_dt >= solver_dt, (
            "save_dt must be greater than or equal to the solver step size."
        )
        return jnp.arange(t0, t1 + save_dt, save_dt)

    @staticmethod
    def _zero_like_control_state(control_state: Any | None) -> Any | None:
        """Create a zero-structured control_state derivative matching the provided PyTree."""
        if control_state is None:
            return None
        return jax.tree_util.tree_map(jnp.zeros_like, control_state)

    def _open_loop_forward_dynamics(
        self, t: Array, ode_state: Array, actuation_args: tuple[Array, Array]
    ) -> Array:
        """Wrapper for forward_dynamics used in open-loop rollouts.

        This is defined as a class method rather than an inline closure to avoid
        JAX/XLA compilation overhead associated with closures.
        """
        base_u_val, base_tau_ext = actuation_args
        return self.forward_dynamics(t, ode_state, (base_u_val, base_tau_ext))

    def rollout_discrete_closed_loop_to(
        self,
        initial_state: SystemState,
        controller: Callable[[SystemState], tuple[Array, Any | None]],
        tau_ext: Array | None = None,
        duration: float = 10.0,
        solver_dt: float | Array = 1e-4,
        control_dt: float = 0.01,
        save_dt: float = 0.01,
        solver: AbstractSolver | None = None,
        stepsize_controller: AbstractStepSizeController | None = ConstantStepSize(),
        max_steps: int | None = None,
    ) -> SystemState:
        """
        Roll out the system in discrete-time closed loop.

        The controller is evaluated every ``control_dt`` seconds. Between control
        evaluations the actuation is held constant and the system is integrated
        with Diffrax (equivalent to repeatedly calling ``rollout_to`` over each
        control interval).

        The controller signature mirrors ``rollout_closed_loop_to``. If it returns a
        ``control_state_dot`` and ``initial_state.control_state`` is provided, the
        control state is advanced with a forward-Euler step over the control period;
        otherwise the control state is held constant between controller calls.

        The rollout uses a regular time grid. For static tracing/compilation the
        following constraints are enforced:
        - ``duration`` is an integer multiple of ``control_dt``.
        - ``control_dt`` is an integer multiple of ``save_dt``.

        Args:
            initial_state: initial time/state (and optional feedforward actuation/control state).
            controller: callable returning ``(u_control, control_state_dot)``.
            tau_ext: constant external wrench/force applied during the rollout.
            duration: simulation duration in seconds.
            solver_dt: initial step size for the solver.
            control_dt: sampling period for the controller. Must be positive.
            save_dt: save interval. Must be positive and evenly divide ``control_dt``.
            solver: Diffrax solver.
            stepsize_controller: Diffrax stepsize controller.
            max_steps: maximum solver steps.
        """
        if controller is None:
            raise ValueError("A controller must be provided for closed-loop rollouts.")

        if not isinstance(duration, (float, int)):
            raise TypeError("duration must be a float.")
        if not isinstance(control_dt, (float, int)):
            raise TypeError("control_dt must be a float.")
        if not isinstance(save_dt, (float, int)):
            raise TypeError("save_dt must be a float.")

        duration = float(duration)
        control_dt = float(control_dt)
        save_dt = float(save_dt)

        if duration <= 0.0:
            raise ValueError("duration must be positive.")
        if control_dt <= 0.0:
            raise ValueError("control_dt must be positive.")
        if save_dt <= 0.0:
            raise ValueError("save_dt must be positive.")
        if save_dt > control_dt:
            raise ValueError("save_dt must be less than or equal to control_dt.")

        # Require commensurate, regular control/save grids so the (control, save) sequence
        # is static and can be traced/compiled without runtime masking.
        saves_per_control = int(round(control_dt / save_dt))
        if saves_per_control < 1 or not math.isclose(
            saves_per_control * save_dt,
            control_dt,
            rel_tol=1e-12,
            abs_tol=1e-12,
        ):
            raise ValueError("control_dt must be an integer multiple of save_dt.")

        num_control_steps = int(round(duration / control_dt))
        if num_control_steps < 1 or not math.isclose(
            num_control_steps * control_dt,
            duration,
            rel_tol=1e-12,
            abs_tol=1e-12,
        ):
            raise ValueError("duration must be an integer multiple of control_dt.")

        if solver is None:
            solver = Tsit5()

        term = ODETerm(self._open_loop_forward_dynamics)

        base_u = initial_state.u
        if base_u is None:
            base_u = jnp.zeros((self.num_actuators,))

        y_curr = initial_state.y
        control_state = initial_state.control_state
        track_control_state = control_state is not None
        zero_control_state_dot = self._zero_like_control_state(control_state)

        t0 = initial_state.t
        t0_dtype = jnp.asarray(t0).dtype
        save_offsets = save_dt * jnp.arange(saves_per_control + 1, dtype=t0_dtype)
        control_offsets = control_dt * jnp.arange(num_control_steps, dtype=t0_dtype)
        t_starts = t0 + control_offsets
        t_ends = t_starts + control_dt

        def body(
            carry: tuple[Array, Any | None],
            t_bounds: tuple[Array, Array],
        ) -> tuple[tuple[Array, Any | None], tuple[Array, Array, Array, Any | None]]:
            """
            Advance one control interval: evaluate controller at ``t_start``, hold actuation
            for the interval, integrate dynamics, and return saved trajectories.

            Args:
                carry: tuple of current state ``y_in`` and current control state ``ctrl_state_in``.
                t_bounds: tuple of start and end times for this control interval.
            Returns:
                next_carry: tuple of next state and next control state.
                outputs: tuple of saved times, states, actuations, and control states.
            """
            y_in, ctrl_state_in = carry
            t_start, t_end = t_bounds

            system_state = SystemState(
                t=t_start, y=y_in, u=base_u, control_state=ctrl_state_in
            )
            u_control, control_state_dot = controller(system_state)
            if control_state_dot is not None and not track_control_state:
                raise ValueError(
                    "Controller returned a control_state derivative but no initial control_state was provided."
                )
            control_state_dot = (
                control_state_dot
                if control_state_dot is not None
                else zero_control_state_dot
            )

            u_total = base_u + u_control

            ts_control_interval = t_start + save_offsets
            saveat = SaveAt(ts=ts_control_interval, t0=False, t1=False)
            sol = diffeqsolve(
                terms=term,
                solver=solver,
                t0=t_start,
                t1=t_end,
                dt0=solver_dt,
                y0=y_in,
                args=(u_total, tau_ext),
                saveat=saveat,
                stepsize_controller=stepsize_controller,
                max_steps=max_steps,
            )

            ctrl_state_next = (
                jax.tree_util.tree_map(
                    lambda c, cdot: c + cdot * (t_end - t_start),
                    ctrl_state_in,
                    control_state_dot,
                )
                if track_control_state
                else None
            )

            us_out = jnp.broadcast_to(u_total, (sol.ts.shape[0], u_total.shape[0]))

            if track_control_state:
                # Controller state is held constant over the interval, then advanced at the end.
                cs_out = jax.tree_util.tree_map(
                    lambda c, c_next: jnp.concatenate(
                        [
                            jnp.broadcast_to(
                                c, (sol.ts.shape[0] - 1,) + c.shape  # type: ignore[misc]
                            ),
                            c_next[None, ...],
                        ],
                        axis=0,
                    ),
                    ctrl_state_in,
                    ctrl_state_next,
                )
            else:
                cs_out = None

            y_next = sol.ys[-1]

            outputs = (sol.ts, sol.ys, us_out, cs_out)
            next_carry = (y_next, ctrl_state_next)
            return next_carry, outputs

        _, scan_outputs = lax.scan(body, (y_curr, control_state), (t_starts, t_ends))
        ts_segments, ys_segments, us_segments, cs_segments = scan_outputs

        # Drop the first (duplicate) sample of every interval except the first.
        if num_control_steps == 1:
            ts_all = ts_segments[0]
            ys_all = ys_segments[0]
            us_all = us_segments[0]
            control_state_out = cs_segments[0] if track_control_state else None
        else:
            ts_tail = ts_segments[1:, 1:].reshape(-1)
            ys_tail = ys_segments[1:, 1:].reshape((-1,) + ys_segments.shape[2:])
            us_tail = us_segments[1:, 1:].reshape((-1, self.num_actuators))
            ts_all = jnp.concatenate([ts_segments[0], ts_tail], axis=0)
            ys_all = jnp.concatenate([ys_segments[0], ys_tail], axis=0)
            us_all = jnp.concatenate([us_segments[0], us_tail], axis=0)
            if track_control_state and cs_segments is not None:
                control_state_out = jax.tree_util.tree_map(
                    lambda arr: jnp.concatenate(
                        [arr[0], arr[1:, 1:].reshape((-1,) + arr.shape[2:])], axis=0
                    ),
                    cs_segments,
                )
            else:
                control_state_out = None

        return SystemState(
            t=ts_all, y=ys_all, u=us_all, control_state=control_state_out
        )


class Pendulum(DynamicalSystem):
    # stand-in for soromox.systems.Pendulum: two independent damped joints, u as torque
    inertia: Array

    def __init__(self, inertia):
        self.num_dofs = 2
        self.num_actuators = 2
        self.inertia = inertia

    def forward_dynamics(self, t, y, actuation_args=None):
        q, qd = jnp.split(y, 2)
        u, tau_ext = actuation_args
        qdd = (u - 0.1 * qd) / self.inertia
        return jnp.concatenate([qd, qdd])


class PIDController(eqx.Module):
    kp: float
    ki: float
    kd: float
    target: jnp.ndarray

    def __call__(self, state: SystemState):
        q_len = self.target.shape[0]
        q, qd = jnp.split(state.y, [q_len], axis=0)
        integ = state.control_state

        error = self.target - q
        d_error = -qd  # derivative of (target - q) when target is constant

        u = self.kp * error + self.ki * integ + self.kd * d_error
        control_state_dot = error
        return u, control_state_dot


if __name__ == "__main__":
    robot = Pendulum(jnp.array([0.1, 0.05]))

    q0 = jnp.array([0.3, -0.2])
    qd0 = jnp.zeros_like(q0)
    initial_state = SystemState(
        t=0.0,
        y=jnp.concatenate([q0, qd0]),
        u=jnp.zeros_like(q0),
        control_state=jnp.zeros_like(q0),
    )
    controller = PIDController(kp=8.0, ki=2.5, kd=1.5, target=jnp.zeros_like(q0))

    def loss_fn(y0: jnp.ndarray) -> jnp.ndarray:
        init = eqx.tree_at(lambda s: s.y, initial_state, y0)
        traj = robot.rollout_discrete_closed_loop_to(
            initial_state=init,
            controller=controller,
            duration=0.2,
            solver_dt=1e-3,
            control_dt=0.02,
            save_dt=0.01,
        )
        q_final = traj.y[-1, : q0.shape[0]]
        return jnp.sum(q_final**2)

    y0 = initial_state.y
    loss = jax.jit(loss_fn)(y0)
    assert jnp.isfinite(loss)

    def run(q0: jnp.ndarray) -> jnp.ndarray:
        qd0 = jnp.zeros_like(q0)
        init = SystemState(
            t=0.0,
            y=jnp.concatenate([q0, qd0]),
            u=jnp.zeros_like(q0),
            control_state=jnp.zeros_like(q0),
        )
        traj = robot.rollout_discrete_closed_loop_to(
            initial_state=init,
            controller=controller,
            duration=0.2,
            solver_dt=1e-3,
            control_dt=0.02,
            save_dt=0.01,
        )
        return traj.y[-1]

    q0s = jnp.array([[0.3, -0.2], [0.1, 0.05], [-0.25, 0.15]])
    ys_final = jax.jit(jax.vmap(run))(q0s)
    assert ys_final.shape == (q0s.shape[0], 2 * q0s.shape[1])
    assert jnp.all(jnp.isfinite(ys_final))

    def grad_loss_fn(kp: jnp.ndarray) -> jnp.ndarray:
        controller = PIDController(kp=kp, ki=2.5, kd=1.5, target=jnp.zeros_like(q0))
        traj = robot.rollout_discrete_closed_loop_to(
            initial_state=initial_state,
            controller=controller,
            duration=0.2,
            solver_dt=1e-3,
            control_dt=0.02,
            save_dt=0.01,
            max_steps=1024,
        )
        q_final = traj.y[-1, : q0.shape[0]]
        return jnp.sum(q_final**2)

    dloss_dkp = jax.grad(grad_loss_fn)(jnp.array(8.0))
    assert jnp.isfinite(dloss_dkp)
