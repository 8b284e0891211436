import jax
import jax.numpy as jnp
import numpy as np


def loss(w, x):
    return np.sum((x @ w) ** 2)  # runs: NumPy calls the tracer's own .sum()


def loss_sq(w, x):
    return np.square(x @ w).sum()  # expect: JIT402


grad_loss_sq = jax.grad(loss_sq)


grad_loss = jax.grad(loss)


def loss_ok(w, x):
    return jnp.sum((x @ w) ** 2)


grad_loss_ok = jax.grad(loss_ok)


def preprocess(batch):
    batch = np.asarray(batch, dtype=np.float32)
    return (batch - np.mean(batch)) / (np.std(batch) + 1e-6)
