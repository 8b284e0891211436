import jax
import jax.numpy as jnp


def mean_positive(row):
    return row[row > 0].mean()  # expect: JIT403


batched_mean_positive = jax.vmap(mean_positive)


def mean_positive_ok(row):
    m = row > 0
    return jnp.where(m, row, 0).sum() / jnp.maximum(m.sum(), 1)


batched_ok = jax.vmap(mean_positive_ok)
