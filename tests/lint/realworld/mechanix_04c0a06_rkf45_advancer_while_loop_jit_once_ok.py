# source: https://github.com/VIVelev/mechanix/blob/04c0a067dc567d355a2398ea6bbd04ba94e37012/mechanix/_integrators.py
#   (with State and Hamiltonian_to_state_derivative from mechanix/_utils.py at the same commit)
# observed on jax 0.10.2 CPU: the adaptive Runge-Kutta-Fehlberg step decides on accepting a step
#   with jax.lax.while_loop on the traced error, state_advancer's jitted `adv` runs the steps to a
#   traced final time with a while_loop whose condition compares the traced time, and odeint's
#   jitted `integrate` scans `adv` over the output times: nothing of the traced state reaches
#   Python control flow. Two initial states and two final times reuse one compilation each, and
#   a harmonic oscillator's states match cos/sin at the times they reach (error < 1e-6; the
#   advancer stops at its first step at or past the final time, as the code intends).
# Changed: jax.tree_map (removed from JAX) spelt jax.tree.map; tree_math's VectorMixin, which
#   State extends, replaced by a small stand-in giving State its arithmetic. Left out: the
#   fixed-step helpers (eulerstep, rk4step, ab2step, semi_implicit_eulerstep) that the
#   adaptive path does not use. Added: the harmonic-oscillator Hamiltonian and the __main__ block.
# gap: other
import operator
from functools import partial
from typing import Callable

import jax
import jax.numpy as jnp


# --- stand-in for tree_math.VectorMixin (elementwise arithmetic over the pytree) ---
class VectorMixin:
    def _op(self, other, op):
        if isinstance(other, VectorMixin):
            return jax.tree.map(op, self, other)
        return jax.tree.map(lambda a: op(a, other), self)

    def __add__(self, other):
        return self._op(other, operator.add)

    def __sub__(self, other):
        return self._op(other, operator.sub)

    def __mul__(self, other):
        return self._op(other, operator.mul)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._op(other, operator.truediv)


# --- from mechanix/_utils.py ---
@jax.tree_util.register_pytree_node_class
class State(VectorMixin):
    """Generic state representation."""

    def __init__(self, *args):
        self.tup = args

    def __repr__(self):
        return f"State{self.tup}"

    def __getitem__(self, i):
        return self.tup[i]

    def __iter__(self):
        return iter(self.tup)

    def __len__(self):
        return len(self.tup)

    def tree_flatten(self):
        return self.tup, None

    @classmethod
    def tree_unflatten(cls, _, tup):
        return cls(*tup)


StateFunction = Callable[[State], object]


def Hamiltonian_to_state_derivative(H: StateFunction) -> StateFunction:
    jacH = jax.jacrev(H)

    def f(local: State):
        t, _, _ = local
        jacH_ = jacH(local)
        return State(jnp.ones_like(t), jacH_[2], -jacH_[1])

    return f


# --- mechanix/_integrators.py ---
def adaptive_rkf45step(
    f: Callable[[State], State],
    y0: State,
    h: float,
    *,
    tolerance=5e-8,
    safety_factor=0.9,
) -> State:
    """Adaptive step size Runge-Kutta-Fehlberg Method (RKF45).

    !! The actual step may be smaller then `h`

    Returns:
        y1: The state at the next time step
        next_h: The suggested next step size

    References:
        https://maths.cnam.fr/IMG/pdf/RungeKuttaFehlbergProof.pdf
        https://github.com/gwater/RungeKuttaFehlberg.jl/blob/master/src/RungeKuttaFehlberg.jl
    """

    def calc_steps(f, y0, h):
        k1 = f(y0)
        k2 = f(y0 + h * k1 / 4)
        k3 = f(y0 + h * (3 * k1 + 9 * k2) / 32)
        k4 = f(y0 + h * (1932 * k1 - 7200 * k2 + 7296 * k3) / 2197)
        k5 = f(y0 + h * (439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104))
        k6 = f(
            y0
            + h
            * (
                -8 * k1 / 27
                + 2 * k2
                - 3544 * k3 / 2565
                + 1859 * k4 / 4104
                - 11 * k5 / 40
            )
        )
        step_rk4 = h * (25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5)
        step_rk5 = h * (
            16 * k1 / 135
            + 6656 * k3 / 12825
            + 28561 * k4 / 56430
            - 9 * k5 / 50
            + 2 * k6 / 55
        )
        return step_rk4, step_rk5

    def tree_l1_norm(t):
        abs = jax.tree.map(lambda x: jnp.sum(jnp.abs(x)), t)
        return jax.tree_util.tree_reduce(operator.add, abs)

    def suggest_h(err, h):
        return h * safety_factor * (tolerance / err) ** (1 / 5)

    def cond(st):
        err, _, _ = st
        return err > tolerance

    def body(st):
        err, h, step = st
        h = suggest_h(err, h)
        step_rk4, step_rk5 = calc_steps(f, y0, h)
        err = tree_l1_norm(step_rk4 - step_rk5)
        return err, h, step_rk5

    step_rk4, step_rk5 = calc_steps(f, y0, h)
    err = tree_l1_norm(step_rk4 - step_rk5)
    err, h, step_rk5 = jax.lax.while_loop(cond, body, (err, h, step_rk5))
    return y0 + step_rk5, suggest_h(err, h)


def state_stepper(
    sysder: Callable[[State], State], tolerance=5e-8
) -> Callable[[State, float], State]:
    """Stepper makes a concretely one step in time."""
    return jax.jit(partial(adaptive_rkf45step, sysder, tolerance=tolerance))


def state_advancer(
    sysder: Callable[[State], State],
    tolerance=5e-8,
) -> Callable[[State, float], State]:
    """Advancer advaces the state to the specified final time,
    possibly making many steps.
    """

    step = state_stepper(sysder, tolerance=tolerance)

    @jax.jit
    def adv(y, tf):
        return jax.lax.while_loop(
            # The state is (next_y, suggested_next_h); see `adaptive_rkf45step`
            lambda y_h: y_h[0][0] < tf,
            lambda y_h: step(y_h[0], y_h[1]),
            step(y, tf - y[0]),
        )[0]

    return adv


def odeint(
    sysder: Callable[[State], State],
    tolerance=5e-8,
) -> Callable[[State, jax.Array], State]:
    adv = state_advancer(sysder, tolerance=tolerance)

    def body(y, t):
        next_y = adv(y, t)
        return next_y, next_y

    @jax.jit
    def integrate(y0, t):
        return jax.lax.scan(body, y0, t)[1]

    return integrate


def H_harmonic(local):
    _, q, p = local
    return 0.5 * jnp.sum(p**2) + 0.5 * jnp.sum(q**2)


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    sysder = Hamiltonian_to_state_derivative(H_harmonic)
    adv = state_advancer(sysder, tolerance=1e-10)
    y0 = State(jnp.array(0.0), jnp.array([1.0]), jnp.array([0.0]))
    y1 = adv(y0, 2 * jnp.pi)
    n_after_first = len(compiles)
    y2 = adv(State(jnp.array(0.0), jnp.array([0.5]), jnp.array([0.0])), jnp.pi)
    assert len(compiles) == n_after_first, compiles
    print("adv to 2pi:", y1, "adv to pi:", y2)
    assert float(y1[0]) >= 2 * jnp.pi and float(y2[0]) >= jnp.pi
    assert abs(float(y1[1][0]) - jnp.cos(y1[0])) < 1e-6 and abs(float(y1[2][0]) + jnp.sin(y1[0])) < 1e-6
    assert abs(float(y2[1][0]) - 0.5 * jnp.cos(y2[0])) < 1e-6

    integrate = odeint(sysder, tolerance=1e-10)
    t = jnp.linspace(0.1, 2 * jnp.pi, 16)
    ys = integrate(y0, t)
    n_after_first = len(compiles)
    ys2 = integrate(State(jnp.array(0.0), jnp.array([2.0]), jnp.array([0.0])), t)
    assert len(compiles) == n_after_first, compiles
    err = jnp.max(jnp.abs(ys[1][:, 0] - jnp.cos(ys[0])))
    err2 = jnp.max(jnp.abs(ys2[1][:, 0] - 2 * jnp.cos(ys2[0])))
    print("odeint max error vs cos:", err, err2)
    assert err < 1e-6 and err2 < 1e-6
