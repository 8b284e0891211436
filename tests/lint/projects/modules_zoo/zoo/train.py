import equinox as eqx
import jax
import jax.numpy as jnp

from zoo.eqx_models import Child, Scaler
from zoo.layers import GatedDense, Normalised, Safe

gated = GatedDense(4)
normalised = Normalised(4)
safe = Safe(4)


@jax.jit
def gated_loss(params, x):
    return jnp.mean(gated.apply(params, x) ** 2)


@jax.jit
def normalised_loss(params, x):
    return jnp.mean(normalised.apply(params, x))


@jax.jit
def safe_loss(params, x):
    return jnp.mean(safe.apply(params, x))


@eqx.filter_jit
def scaled(model: Scaler, x):
    return model(x)


@eqx.filter_jit
def child_out(model: Child, x):
    return model(x)
