"""Boltzmann log-weights computed through exp and log (the bug)."""

import jax.numpy as jnp


def log_boltzmann_weights(energy, temperature):
    """Return the unnormalised log-probability of states with the given energies."""
    weights = jnp.exp(-energy / temperature)  # underflows to 0 for large energies
    return jnp.log(weights)  # jit rewrites log(exp(x)) to x; eagerly this is -inf
