# source: https://github.com/secretflow/spu/issues/148 (the reporter's 2023-04-10 comment;
#   the k-means fit, run here without SPU)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at the `if jnp.all(...)` convergence
#   test inside the jitted fit: the centroids are traced, so Python cannot decide whether
#   to break. The iris data the report loaded with sklearn/pandas and its secretflow test()
#   driver are replaced by a seeded (150, 4) array passed to fit; the unused imports of
#   the report (pandas, sklearn, secretflow, tempfile, os, tree_util) are left out.
# gap: other
import numpy as np
import jax
import jax.numpy as jnp
from jax import random


@jax.jit
def fit(X: np.ndarray) -> np.ndarray:
    n_clusters = 5
    tol = 1e-4
    max_iter = 10
    indice = random.choice(random.PRNGKey(
        0), X.shape[0], shape=(n_clusters,), replace=False)
    centroids = jnp.take(X, indice, axis=0)

    labels = jnp.zeros(X.shape[0])

    for i in range(max_iter):
        old_centroids = centroids.copy()

        centroids = jnp.array(
            [(jnp.sum(X * (labels == j)[:, jnp.newaxis], axis=0) - jnp.sum(X * (labels != j)[:, jnp.newaxis], axis=0)) / jnp.sum(labels == j)
             for j in range(n_clusters)])

        # This is the line that causes the error
        if jnp.all(jnp.less(jnp.max(jnp.abs(centroids - old_centroids)), tol)):  # expect: JIT101
            break

    return centroids


x = np.random.default_rng(0).normal(size=(150, 4)).astype(np.float32)
fit(x)
