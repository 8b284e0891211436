import jax
import jax.numpy as jnp


@jax.jit
def loss_and_metrics(pred, y):
    loss = jnp.mean((pred - y) ** 2)
    metrics = {
        "loss": float(loss),  # expect: JIT401
        "max_err": jnp.abs(pred - y).max().item(),  # expect: JIT401
    }
    return loss, metrics


@jax.jit
def topk_list(x):
    return jnp.argsort(x)[-5:].tolist()  # expect: JIT401


@jax.jit
def batch_norm(x):
    n = int(x.shape[0])
    d = float(x.shape[-1])
    return (x - x.mean(0)) / jnp.sqrt(x.var(0) + 1e-5) * (n / d)


def log_metrics(loss):
    return {"loss": float(loss), "as_list": jnp.atleast_1d(loss).tolist()}
