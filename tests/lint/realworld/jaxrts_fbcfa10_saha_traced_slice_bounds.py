# source: https://github.com/JaXRTS/jaxrts/blob/092294f6357b9e4cccf65e2b5725d0b7b612b395/src/jaxrts/saha.py (calculate_mean_free_charge_saha; made jit-able in commit https://github.com/JaXRTS/jaxrts/commit/fbcfa10c80c472bddd8d06a29de062e51fda1651)
# observed on jax 0.10.2 CPU: IndexError "Slice entries must be static integers" at line 59 (sol[indices[i] : indices[i + 1]]) while tracing mean_charge
# gap: omnistaging
# calculate_mean_free_charge_saha is kept as written except that the unit conversion `.m_as(1 / ureg.cc)`
# (jpu/pint) is dropped. Stand-ins: `solve_saha` (the real one builds and solves the Saha matrix with pint units;
# this one returns a T_e-dependent population of every ionization state, with the same layout and the same
# static `element_list`), an `Element` with `Z`, and a `PlasmaState` NamedTuple. Added: the jitted caller.
# Under jit, `indices` (a jnp.cumsum of the static charges) is a tracer, so the slice bounds are not static.
from functools import partial
from typing import NamedTuple, Tuple

import jax
import jax.numpy as jnp


class Element(NamedTuple):
    symbol: str
    Z: int


class PlasmaState(NamedTuple):
    ions: Tuple[Element, ...]
    T_e: jnp.ndarray
    mass_density: jnp.ndarray
    atomic_masses: jnp.ndarray


@partial(jax.jit, static_argnames=["element_list"])
def solve_saha(element_list, T_e, ion_number_densities):
    out = []
    for ion_dens, element in zip(ion_number_densities, element_list):
        weights = jax.nn.softmax(-((jnp.arange(element.Z + 1) - T_e / 10.0) ** 2))
        out.append(ion_dens * weights)
    return jnp.concatenate(out)


def calculate_mean_free_charge_saha(plasma_state):
    """
    Calculates the mean charge of each ion in a plasma using the Saha-Boltzmann equation.

    Parameters:
    plasma_state (PlasmaState): The plasma state object.

    Returns:
    jnp.ndarray: An array containing the mean charge of each ion in the plasma.
    """

    sol = solve_saha(
        tuple(plasma_state.ions),
        plasma_state.T_e,
        (plasma_state.mass_density / plasma_state.atomic_masses),
    )

    indices = jnp.cumsum(
        jnp.array([0] + list([ion.Z + 1 for ion in plasma_state.ions]))
    )
    Z_total = jnp.array(
        [
            jnp.sum(sol[indices[i] : indices[i + 1]])  # expect: JIT404
            for i in range(len(indices) - 1)
        ]
    )
    Z_free = jnp.array(
        [
            jnp.sum(
                sol[indices[i] : indices[i + 1]]  # tolerate: JIT404
                / Z_total[i]
                * jnp.arange(plasma_state.ions[i].Z + 1)
            )
            for i in range(len(indices) - 1)
        ]
    )

    return Z_free


@jax.jit
def mean_charge(T_e, mass_density):
    state = PlasmaState(
        ions=(Element("C", 6), Element("H", 1)),
        T_e=T_e,
        mass_density=mass_density,
        atomic_masses=jnp.array([12.0, 1.0]),
    )
    return calculate_mean_free_charge_saha(state)


if __name__ == "__main__":
    print(mean_charge(jnp.array(30.0), jnp.array([1.2, 0.1])))
