# source: https://github.com/tud-phi/soromox/blob/6d4f7b66c3d330f6dbe327ea1b16d4f478d27263/src/soromox/systems/dynamical_system.py
# observed on jax 0.10.2 CPU: rollout_discrete_closed_loop_to runs eagerly (the __main__ block
#   prints the eager loss), but under jax.jit of a loss over the initial state it raises
#   ConcretizationTypeError at line 207: t1 and control_dt are Python floats, yet jnp.ceil of
#   their quotient is staged out under jit, so int() of it fails. Had it got past, the
#   boolean masks of lines 331-333 and 337 (flat_mask comes from counts computed in the scan)
#   would raise NonConcreteBooleanIndexError; the fix (tud-phi/soromox#56, fixing issue #54)
#   replaced both with a static regular grid. The library module at the commit
#   before the fix, with the methods this rollout does not use left out; SystemState is
#   soromox's (systems/system_state.py at the same commit) inlined; Pendulum is a stand-in
#   (two independent damped joints), PIDController and the __main__ block are the jittability
#   test of tud-phi/soromox commit 03f0467 with duration= spelt t1= as this version takes it.
# gap: omnistaging

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
        t1: float | Array = 10.0,
        solver_dt: float | Array = 1e-4,
        control_dt: float | Array = 0.01,
        control_ts: Array | None = None,
        save_dt: float | Array = 0.01,
        save_ts: Array | None = None,
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

        Args:
            initial_state: initial time/state (and optional feedforward actuation/control state).
            controller: callable returning ``(u_control, control_state_dot)``.
            tau_ext: constant external wrench/force applied during the rollout.
            t1: final time of the simulation.
            solver_dt: initial step size for the solver.
            control_dt: sampling period for the controller. Must be positive. Only used if ``control_ts`` is not provided.
            control_ts: explicit times to evaluate the controller; falls back to uniform spacing with ``control_dt``.
            save_dt: save interval if ``save_ts`` is not provided.
            save_ts: explicit times to save; falls back to ``save_dt``.
            solver: Diffrax solver.
            stepsize_controller: Diffrax stepsize controller.
            max_steps: maximum solver steps.
        """
        if control_dt <= 0.0:
            raise ValueError("control_dt must be positive.")

        if controller is None:
            raise ValueError("A controller must be provided for closed-loop rollouts.")
        if save_ts is None:
            save_ts = self._compute_save_times(
                float(initial_state.t), t1, solver_dt, save_dt, save_ts
            )

        if solver is None:
            solver = Tsit5()

        base_u = initial_state.u
        if base_u is None:
            base_u = jnp.zeros((self.num_actuators,))

        y_curr = initial_state.y
        control_state = initial_state.control_state
        track_control_state = control_state is not None
        zero_control_state_dot = self._zero_like_control_state(control_state)

        if control_ts is None:
            t_curr = float(initial_state.t)
            total_horizon = t1 - t_curr
            num_control_steps = int(jnp.ceil(total_horizon / control_dt))  # expect: JIT401
            t_starts = t_curr + control_dt * jnp.arange(num_control_steps)
            t_ends = jnp.minimum(t_starts + control_dt, t1)
        else:
            t_starts = control_ts[:-1]
            t_ends = control_ts[1:]

        max_saves = save_ts.shape[0]
        max_save_slots = max_saves + 1  # include control interval end time

        def body(
            carry: tuple[Array, Any | None],
            t_bounds: tuple[Array, Array],
        ) -> tuple[
            tuple[Array, Any | None], tuple[Array, Array, Array, Any | None, Array]
        ]:
            """
            Advance one control interval: evaluate controller at ``t_start``, hold actuation
            for the interval, integrate dynamics, and return padded saved trajectories.

            Args:
                carry: tuple of current state ``y_in`` and current control state ``ctrl_state_in``.
                t_bounds: tuple of start and end times for this control interval.
            Returns:
                next_carry: tuple of next state and next control state.
                outputs: tuple of padded saved times, states, actuations, control states, and count
                    of valid saved steps.
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

            mask = (save_ts >= t_start) & (save_ts <= t_end)
            count = jnp.sum(mask, dtype=jnp.int32)
            idxs = jnp.nonzero(mask, size=max_saves, fill_value=0)[0]
            valid_mask = jnp.arange(max_save_slots - 1) < count
            ts_control_interval = jnp.where(valid_mask, save_ts[idxs], t_end)
            ts_control_interval = jnp.concatenate(
                (ts_control_interval, jnp.array([t_end]))
            )

            # Use class method to avoid closure overhead
            term = ODETerm(self._open_loop_forward_dynamics)
            saveat = SaveAt(ts=ts_control_interval, t1=False)
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

            valid_mask = (jnp.arange(max_save_slots) < (count + 1)).astype(sol.ts.dtype)
            ts_out = sol.ts * valid_mask

            ys_out = jnp.where(
                valid_mask[:, None] > 0,
                sol.ys,
                jnp.zeros_like(sol.ys),
            )

            us_out = jnp.where(
                valid_mask[:, None] > 0,
                jnp.broadcast_to(u_total, (max_save_slots, u_total.shape[0])),
                jnp.zeros((max_save_slots, u_total.shape[0]), dtype=u_total.dtype),
            )

            if track_control_state:
                cs_segment = jax.tree_util.tree_map(
                    lambda c: jnp.zeros((max_save_slots,) + c.shape, dtype=c.dtype),
                    ctrl_state_in,
                )
                mask = (jnp.arange(max_save_slots) < (count + 1)).astype(jnp.int32)
                cs_out = jax.tree_util.tree_map(
                    lambda arr, c: arr
                    + mask.reshape((max_save_slots,) + (1,) * c.ndim) * c,
                    cs_segment,
                    ctrl_state_in,
                )
            else:
                cs_out = None

            y_next = sol.ys[-1]
            ctrl_state_next = (
                jax.tree_util.tree_map(
                    lambda c, cdot: c + cdot * (t_end - t_start),
                    ctrl_state_in,
                    control_state_dot,
                )
                if track_control_state
                else None
            )

            outputs = (ts_out, ys_out, us_out, cs_out, count + 1)
            next_carry = (y_next, ctrl_state_next)
            return next_carry, outputs

        _, scan_outputs = lax.scan(body, (y_curr, control_state), (t_starts, t_ends))
        ts_padded, ys_padded, us_padded, cs_padded, counts = scan_outputs

        idxs = jnp.arange(max_save_slots)
        valid_mask = idxs[None, :] < counts[:, None]
        flat_mask = valid_mask.reshape(-1)

        ts_all = ts_padded.reshape(-1)[flat_mask]  # tolerate: JIT403
        ys_all = ys_padded.reshape((-1,) + ys_padded.shape[2:])[flat_mask]  # tolerate: JIT403
        us_all = us_padded.reshape((-1, self.num_actuators))[flat_mask]  # tolerate: JIT403

        if track_control_state and cs_padded is not None:
            control_state_out = jax.tree_util.tree_map(
                lambda arr: arr.reshape((-1,) + arr.shape[2:])[flat_mask],  # tolerate: JIT403
                cs_padded,
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
            t1=0.2,
            solver_dt=1e-3,
            control_dt=0.02,
            save_dt=0.01,
        )
        q_final = traj.y[-1, : q0.shape[0]]
        return jnp.sum(q_final**2)

    y0 = initial_state.y
    print("eager loss", loss_fn(y0))
    loss = jax.jit(loss_fn)(y0)
