# source: https://github.com/secretflow/secretflow/issues/406 (method 2 of the report; it
#   ran under SPU's jit, here under jax.jit; X and labels are the smallest inputs)
# observed on jax 0.10.2 CPU: ConcretizationTypeError: the size argument of jnp.nonzero
#   must be statically specified (one-argument jnp.where).
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

n_clusters = 3


@jax.jit
def update_centroids(X, labels):
    centroids = jnp.array([jnp.mean(X[jnp.where(labels == j)], axis=0) for j in range(n_clusters)])  # expect: JIT403
    return centroids


X = jnp.arange(20.0).reshape(10, 2)
labels = jnp.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
update_centroids(X, labels)
