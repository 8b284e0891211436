# source: https://github.com/secretflow/secretflow/issues/406 (method 1 of the report; it
#   ran under SPU's jit, here under jax.jit; X, labels and n_clusters are the smallest inputs)
# observed on jax 0.10.2 CPU: NonConcreteBooleanIndexError: X[labels == j] has a
#   data-dependent size.
# gap: types
import jax
import jax.numpy as jnp

n_clusters = 3


@jax.jit
def update_centroids(X, labels, centroids):
    for j in range(n_clusters):
        centroids = centroids.at[j].set(X[labels == j].mean(axis=0))  # expect: JIT403
    return centroids


X = jnp.arange(20.0).reshape(10, 2)
labels = jnp.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
update_centroids(X, labels, jnp.zeros((n_clusters, 2)))
