import jax
import jax.numpy as jnp

HPARAMS = {"beta1": 0.9, "beta2": 0.999}


@jax.jit
def adam_moments(m, v, g):
    b1 = HPARAMS["beta1"]  # expect: JIT201
    b2 = HPARAMS["beta2"]  # expect: JIT201
    return b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g**2


HPARAMS.update(beta1=0.95)
