# source: https://github.com/JaXRTS/jaxrts/blob/fbcfa10c80c472bddd8d06a29de062e51fda1651/src/jaxrts/saha.py (calculate_mean_free_charge_saha after commit fbcfa10c "Make calculate_mean_free_change_saha jit-able")
# observed on jax 0.10.2 CPU: runs clean under jit; the masked sums (jnp.where on the traced cumulative indices) give the same mean charges as the eager call
# gap: omnistaging
# (the fixed version of jaxrts_fbcfa10_saha_traced_slice_bounds.py: the slices with traced bounds become masked sums)
# calculate_mean_free_charge_saha is kept as written except that the unit conversion `.m_as(1 / ureg.cc)`
# (jpu/pint) is dropped. Stand-ins: `solve_saha` (the real one builds and solves the Saha matrix with pint units;
# this one returns a T_e-dependent population of every ionization state, with the same layout and the same
# static `element_list`), an `Element` with `Z`, and a `PlasmaState` NamedTuple. Added: the jitted caller and a
# comparison with the eager result.
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
    Z_total = []
    Z_free = []
    for i in range(len(indices) - 1):
        idx = jnp.arange(len(sol))
        relevant_part = jnp.where(
            (idx >= indices[i]) & (idx < indices[i + 1]), sol, 0
        )
        ionizations = jnp.where(
            (idx >= indices[i]) & (idx < indices[i + 1]),
            jnp.arange(len(sol)) - indices[i],
            0,
        )
        Z_total.append(jnp.sum(relevant_part))
        Z_free.append(jnp.sum(relevant_part / Z_total[i] * ionizations))
    Z_free = jnp.array(Z_free)

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
    T_e, rho = jnp.array(30.0), jnp.array([1.2, 0.1])
    jitted = mean_charge(T_e, rho)
    with jax.disable_jit():
        eager = mean_charge(T_e, rho)
    assert jnp.allclose(jitted, eager), (jitted, eager)
    print(jitted)
