"""Boltzmann log-weights computed in log space (the fix)."""

import jax
import jax.numpy as jnp


def log_boltzmann_weights(energy, temperature):
    """Return the unnormalised log-probability of states with the given energies."""
    return -energy / temperature


def log_probabilities(energy, temperature):
    """Return normalised log-probabilities, stable for any energies."""
    return jax.nn.log_softmax(log_boltzmann_weights(energy, temperature))


def probabilities(energy, temperature):
    """Return the Boltzmann distribution over the states."""
    return jnp.exp(log_probabilities(energy, temperature))
