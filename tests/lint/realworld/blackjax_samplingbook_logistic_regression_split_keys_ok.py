# source: https://github.com/blackjax-devs/sampling-book/blob/4519a1ac8a682ee46ec8393c38dcd55d313d0f83/book/models/logistic_regression.md
# observed on jax 0.10.2 CPU with blackjax 1.7.1: runs clean, also with
#   `jax_debug_key_reuse` on (__main__): the current notebook splits `init_key` off for the
#   initial position and `sample_key` for the sampler, so no key is drawn from twice (the
#   fix of the earlier version that split the key `w0` had been drawn with). The
#   notebook's cells are joined in order without the plots. Added: a NumPy stand-in for
#   scikit-learn's `make_biclusters` (not installed), returning two labelled clusters of
#   2-D points in the same layout; 500 samples rather than 5_000, and a `main()` wrapper so
#   that __main__ can run the cells with the checker on.
# gap: other
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
import jax

from datetime import date
import jax.numpy as jnp
import numpy as np

import blackjax


def make_biclusters(shape, n_clusters, noise, random_state, minval, maxval):
    # stand-in for sklearn.datasets.make_biclusters: points, row labels, column labels
    rng = np.random.default_rng(random_state)
    n, d = shape
    labels = np.arange(n) % n_clusters
    centers = rng.uniform(minval, maxval, size=(n_clusters, d))
    X = centers[labels] + noise * rng.normal(size=(n, d))
    rows = np.stack([labels == k for k in range(n_clusters)])
    cols = np.ones((n_clusters, d), dtype=bool)
    return X, rows, cols


num_points = 50
X, rows, cols = make_biclusters(
    (num_points, 2), 2, noise=0.6, random_state=314, minval=-3, maxval=3
)
y = rows[0] * 1.0  # y[i] = whether point i belongs to cluster 1

Phi = jnp.c_[jnp.ones(num_points)[:, None], X]
N, M = Phi.shape


def sigmoid(z):
    return jnp.exp(z) / (1 + jnp.exp(z))


def log_sigmoid(z):
    return z - jnp.log(1 + jnp.exp(z))


def logdensity_fn(w, alpha=1.0):
    """The log-probability density function of the posterior distribution of the model."""
    log_an = log_sigmoid(Phi @ w)
    an = Phi @ w
    log_likelihood_term = y * log_an + (1 - y) * jnp.log(1 - sigmoid(an))
    prior_term = alpha * w @ w / 2

    return -prior_term + log_likelihood_term.sum()


def inference_loop(rng_key, kernel, initial_state, num_samples):
    @jax.jit
    def one_step(state, rng_key):
        state, _ = kernel(rng_key, state)
        return state, state

    keys = jax.random.split(rng_key, num_samples)
    _, states = jax.lax.scan(one_step, initial_state, keys)

    return states


def main():
    rng_key = jax.random.key(int(date.today().strftime("%Y%m%d")))
    rng_key, init_key = jax.random.split(rng_key)

    w0 = jax.random.multivariate_normal(init_key, 0.1 + jnp.zeros(M), jnp.eye(M))
    rmh = blackjax.rmh(logdensity_fn, blackjax.mcmc.random_walk.normal(jnp.ones(M) * 0.05))
    initial_state = rmh.init(w0)

    rng_key, sample_key = jax.random.split(rng_key)
    states = inference_loop(sample_key, rmh.step, initial_state, 500)

    burnin = 300
    chains = states.position[burnin:, :]
    nsamp, _ = chains.shape

    # Create a meshgrid
    xmin, ymin = X.min(axis=0) - 0.1
    xmax, ymax = X.max(axis=0) + 0.1
    step = 0.1
    Xspace = jnp.mgrid[xmin:xmax:step, ymin:ymax:step]
    _, nx, ny = Xspace.shape

    # Compute the average probability to belong to the first cluster at each point on the meshgrid
    Phispace = jnp.concatenate([jnp.ones((1, nx, ny)), Xspace])
    Z_mcmc = sigmoid(jnp.einsum("mij,sm->sij", Phispace, chains))
    Z_mcmc = Z_mcmc.mean(axis=0)
    return Z_mcmc


if __name__ == "__main__":
    with jax.debug_key_reuse(True):
        main()
