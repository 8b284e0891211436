import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def maybe_reset(model, loss, threshold: float = 10.0):
    if loss > threshold:  # expect: JIT101
        model = eqx.tree_at(lambda m: m.weight, model, jnp.zeros_like(model.weight))
    return model


@eqx.filter_jit
def grow(model, n_new: int):
    if n_new > 0:
        model = eqx.tree_at(lambda m: m.weight, model, jnp.pad(model.weight, (0, n_new)))
    return model
