# source: https://github.com/nicolaseberle/flyTracker/blob/b65552afcd595341ad88bdd19a26858a890c4e21/src/flytracker/kmeans.py
#   (a fly-tracking project's k-means, jitted whole: the convergence check on the centre
#   shift is a lax.while_loop condition, the M step a one-hot matrix of static shape)
# observed on jax 0.10.2 CPU: runs clean; kmeans_jax traces once for a given data shape,
#   the while_loop stops on the traced norm of the centre shift, and the result matches
#   the same Lloyd iteration run eagerly in NumPy. Changed: jax.ops.index_update (removed
#   from JAX) spelled M.at[labels, jnp.arange(n_samples)].set(1.0). Left out: the file's
#   kmeans_torch (PyTorch) and its `import torch`. Added: the __main__ block.
# gap: exemption-vs-JAX
import jax
from jax import jit, lax, numpy as jnp
from functools import partial


@jit
def cdist(x, y):
    return jnp.linalg.norm(x[:, None, :] - y[None, :, :], axis=-1)


@jit
def kmeans_jax(X, init):
    def cond_fun(carry):
        new_centers, old_centers = carry
        return jnp.linalg.norm(new_centers - old_centers) > 1e-4

    def kmeans_step(X, mu):
        # E step
        dist_matrix = cdist(X, mu)
        labels = jnp.argmin(dist_matrix, axis=1)

        # Mstep
        M = jnp.zeros((n_clusters, n_samples))
        M = M.at[labels, jnp.arange(n_samples)].set(1.0)
        new_mu = (M / jnp.sum(M, axis=1, keepdims=True)) @ X
        return new_mu, labels

    def body_fun(carry):
        new, _ = carry
        return step(new)[0], new

    n_clusters = init.shape[0]
    n_samples = X.shape[0]
    step = partial(kmeans_step, X)

    init_carry = (step(init)[0], init)
    mu, _ = lax.while_loop(cond_fun, body_fun, init_carry)
    _, labels = step(mu)
    return mu, labels


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    blobs = [rng.normal(c, 0.3, size=(40, 2)) for c in ((0, 0), (4, 0), (0, 4))]
    X = jnp.asarray(np.concatenate(blobs), dtype=jnp.float32)
    init = X[jnp.array([0, 40, 80])] + 0.5

    traces = []
    jax.monitoring.register_event_listener(
        lambda name, **kw: traces.append(name) if name == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    mu, labels = kmeans_jax(X, init)
    mu2, labels2 = kmeans_jax(X + 0.0, init)

    # the same Lloyd iteration, eagerly in NumPy
    Xn, c = np.asarray(X), np.asarray(init)
    while True:
        lab = np.argmin(np.linalg.norm(Xn[:, None] - c[None], axis=-1), axis=1)
        new = np.stack([Xn[lab == k].mean(0) for k in range(3)])
        done = np.linalg.norm(new - c) <= 1e-4
        c = new
        if done:
            break
    assert np.allclose(np.asarray(mu), c, atol=1e-4), (mu, c)
    assert (np.asarray(labels) == np.repeat([0, 1, 2], 40)).all()
    assert (labels2 == labels).all()
    print("centres:", mu, "traces:", len(traces))
