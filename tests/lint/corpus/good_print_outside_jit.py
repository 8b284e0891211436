import logging

import jax
import jax.numpy as jnp

log = logging.getLogger("train")


def report(step, metrics):
    print(f"[{step}] " + " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
    log.info("metrics %s", metrics)


@jax.jit
def metrics_fn(pred, y):
    return {"mse": jnp.mean((pred - y) ** 2), "mae": jnp.mean(jnp.abs(pred - y))}


def evaluate(pred, y, step):
    m = metrics_fn(pred, y)
    report(step, jax.device_get(m))
    print("done")
    return m
