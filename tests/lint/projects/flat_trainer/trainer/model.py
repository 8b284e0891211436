import jax
import jax.numpy as jnp


def init_params(key, n_in, n_out):
    wkey, bkey = jax.random.split(key)
    return {
        "w": jax.random.normal(wkey, (n_in, n_out)) * 0.1,
        "b": jax.random.normal(bkey, (n_out,)) * 0.1,
    }


def predict(params, x):
    return x @ params["w"] + params["b"]


def describe(params):
    # Shapes are static under jit: a good lookalike.
    if params["w"].ndim == 2 and params["w"].shape[1] > 1:
        return "matrix"
    return "vector"


def clip_loss(loss):
    if loss > 100.0:  # expect: JIT101
        return jnp.minimum(loss, 100.0)
    return loss


def clip_loss_fixed(loss):
    return jnp.where(loss > 100.0, 100.0, loss)
