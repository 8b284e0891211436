import jax.numpy as jnp

from regress import settings
from regress.core import fit_step


def main(decay):
    settings.DECAY = decay
    settings.set_learning_rate(0.01)
    w = jnp.zeros(3)
    x = jnp.ones((4, 3))
    return fit_step(w, x, jnp.ones(4))
