# source: https://github.com/secretflow/spu/issues/536 (the reporter's 2024-02-04 comment)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: `centers[jnp.argmin(inertia)]`
#   indexes a JAX array with a traced integer, which jit supports (the report's runtime
#   error came from SPU's simulator, not from JAX). The SPU simulator call
#   `spsim.sim_jax(sim, proc)` is replaced by `jax.jit(proc)`; added: the imports and the
#   check in __main__.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def proc(x, centers):
    C = x.reshape((1, 1, x.shape[0], x.shape[1])) - centers.reshape(
        (centers.shape[0], centers.shape[1], 1, centers.shape[2])
    ) # shape [n_init, n_clusters, n_samples, n_features]
    distance =  jnp.sum(jnp.square(C), axis=3) # shape [n_init, n_clusters, n_samples]
    index = jnp.argmin(distance, axis=1) # shape [n_init, n_samples]
    inertia = jnp.sum(jnp.take(distance, index), axis=1) # shape [n_init]
    centers_best = centers[jnp.argmin(inertia)] # selection here, should choose centers with shape [n_clusters, n_features] from [n_init, n_clusters, n_features]
    return centers_best

X = jnp.ones((4, 2)) # shape [n_samples, n_features]
centers = jnp.ones((2, 3, 2)) # shape [n_init, n_clusters, n_features]


if __name__ == "__main__":
    result = jax.jit(proc)(X, centers)
    print("result\n", result)
    assert result.shape == (3, 2)
    assert jnp.array_equal(result, proc(X, centers))
