# source: https://github.com/jaxleyverse/jaxley/blob/2638cca2665ec056c40c932dcee924192fc94da2/jaxley/channels/hh.py
#   (the HH channel verbatim, with save_exp, solve_gate_exponential and exponential_euler
#   of jaxley/solver_gate.py at the same commit; jaxley is not installed, so a stand-in for
#   jaxley.channels.Channel sets the name the channel prefixes its parameters and states
#   with. The __main__ block steps one compartment under jax.jit with lax.scan: the
#   channel's update_states and compute_current, and a forward Euler voltage update with an
#   injected current standing in for jaxley's integrate)
# observed on jax 0.10.2 CPU: runs clean: the gates' Python-float constants and the dict
#   keys built from the channel's name are static, the voltage and states are traced, and
#   the neuron spikes (the voltage passes 0 mV).
# gap: exemption-vs-JAX
from typing import Optional

import jax
import jax.numpy as jnp
from jax import Array
from jax.typing import ArrayLike


# jaxley/solver_gate.py
def save_exp(x, max_value: float = 20.0):
    """Clip the input to a maximum value and return its exponential."""
    x = jnp.minimum(x, max_value)
    return jnp.exp(x)


def solve_gate_exponential(
    x: ArrayLike,
    dt: float,
    alpha: ArrayLike,
    beta: ArrayLike,
):
    tau = 1 / (alpha + beta)
    xinf = alpha * tau
    return exponential_euler(x, dt, xinf, tau)


def exponential_euler(
    x: ArrayLike,
    dt: float,
    x_inf: ArrayLike,
    x_tau: ArrayLike,
):
    """An exact solver for the linear dynamical system `dx = -(x - x_inf) / x_tau`."""
    exp_term = save_exp(-dt / x_tau)
    return x * exp_term + x_inf * (1.0 - exp_term)


class Channel:
    # stand-in for jaxley.channels.Channel: the name that prefixes params and states
    def __init__(self, name: Optional[str] = None):
        self._name = name if name else self.__class__.__name__


# jaxley/channels/hh.py
class HH(Channel):
    """Hodgkin-Huxley channel based on Sterratt, Graham, Gillies & Einevoll."""

    def __init__(self, name: Optional[str] = None):
        self.current_is_in_mA_per_cm2 = True

        super().__init__(name)
        prefix = self._name
        self.channel_params = {
            f"{prefix}_gNa": 0.12,
            f"{prefix}_gK": 0.036,
            f"{prefix}_gLeak": 0.0003,
            f"{prefix}_eNa": 50.0,
            f"{prefix}_eK": -77.0,
            f"{prefix}_eLeak": -54.3,
        }
        self.channel_states = {
            f"{prefix}_m": 0.2,
            f"{prefix}_h": 0.2,
            f"{prefix}_n": 0.2,
        }
        self.current_name = f"i_HH"

    def update_states(
        self,
        states: dict[str, Array],
        dt: float,
        v: float,
        params: dict[str, Array],
    ) -> dict[str, Array]:
        """Return updated HH channel state."""
        prefix = self._name
        m, h, n = states[f"{prefix}_m"], states[f"{prefix}_h"], states[f"{prefix}_n"]
        new_m = solve_gate_exponential(m, dt, *self.m_gate(v))
        new_h = solve_gate_exponential(h, dt, *self.h_gate(v))
        new_n = solve_gate_exponential(n, dt, *self.n_gate(v))
        return {f"{prefix}_m": new_m, f"{prefix}_h": new_h, f"{prefix}_n": new_n}

    def compute_current(
        self, states: dict[str, Array], v: float, params: dict[str, Array]
    ) -> float:
        """Return current through HH channels."""
        prefix = self._name
        m, h, n = states[f"{prefix}_m"], states[f"{prefix}_h"], states[f"{prefix}_n"]

        gNa = params[f"{prefix}_gNa"] * (m**3) * h  # S/cm^2
        gK = params[f"{prefix}_gK"] * n**4  # S/cm^2
        gLeak = params[f"{prefix}_gLeak"]  # S/cm^2

        return (
            gNa * (v - params[f"{prefix}_eNa"])
            + gK * (v - params[f"{prefix}_eK"])
            + gLeak * (v - params[f"{prefix}_eLeak"])
        )

    def init_state(
        self,
        states: dict[str, ArrayLike],
        v: ArrayLike,
        params: dict[str, ArrayLike],
        delta_t: float,
    ) -> dict[str, float]:
        """Initialize the state such at fixed point of gate dynamics."""
        prefix = self._name
        alpha_m, beta_m = self.m_gate(v)
        alpha_h, beta_h = self.h_gate(v)
        alpha_n, beta_n = self.n_gate(v)
        return {
            f"{prefix}_m": alpha_m / (alpha_m + beta_m),
            f"{prefix}_h": alpha_h / (alpha_h + beta_h),
            f"{prefix}_n": alpha_n / (alpha_n + beta_n),
        }

    @staticmethod
    def m_gate(v):
        alpha = 0.1 * _vtrap(-(v + 40), 10)
        beta = 4.0 * save_exp(-(v + 65) / 18)
        return alpha, beta

    @staticmethod
    def h_gate(v):
        alpha = 0.07 * save_exp(-(v + 65) / 20)
        beta = 1.0 / (save_exp(-(v + 35) / 10) + 1)
        return alpha, beta

    @staticmethod
    def n_gate(v):
        alpha = 0.01 * _vtrap(-(v + 55), 10)
        beta = 0.125 * save_exp(-(v + 65) / 80)
        return alpha, beta


def _vtrap(x, y):
    return x / (save_exp(x / y) - 1.0)


if __name__ == "__main__":
    hh = HH()
    params = hh.channel_params
    dt = 0.025  # ms
    capacitance = 1.0  # uF/cm^2
    i_ext = 0.01  # mA/cm^2

    @jax.jit
    def simulate(v0):
        states = hh.init_state(hh.channel_states, v0, params, dt)

        def step(carry, _):
            v, states = carry
            states = hh.update_states(states, dt, v, params)
            i = hh.compute_current(states, v, params)  # mA/cm^2
            v = v + dt * 1000.0 * (i_ext - i) / capacitance
            return (v, states), v

        _, vs = jax.lax.scan(step, (v0, states), None, length=2000)
        return vs

    vs = simulate(jnp.asarray(-70.0))
    assert jnp.isfinite(vs).all() and vs.max() > 0.0, vs.max()
    print(vs.max())
