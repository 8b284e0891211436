# source: https://github.com/ellingsvee/MA8702/blob/a2257db31866863538221fa5e60c733dff8da1e4/variational_inference_presentation/vi/examples/bbvi_gmm.py (with src/vi/bbvi.py and src/vi/data.py at the same commit: black-box VI of a Gaussian mixture's means, written by hand with optax)
# observed on jax 0.10.2 CPU: runs clean; run_bbvi jits `step` (which differentiates the jitted `neg_elbo`) once per run; it
#   compiles three times in the first three iterations (the weak type of `jnp.full(shape, 0.0)` and of adam's state settle)
#   and never again however many iterations follow; the loop splits the key before every step, so each step draws fresh
#   reparameterisation noise; the data generator splits its key before each draw
# gap: other
# (merged: run_bbvi from src/vi/bbvi.py and generate_gmm_dataset from src/vi/data.py; replaced: the tabulate table by a plain
#  print (tabulate is not installed); added: the __main__ checks)
from typing import Callable

import jax
import jax.numpy as jnp
import optax
from jax import Array, value_and_grad

jax.config.update("jax_enable_x64", True)


def generate_gmm_dataset(
    centers: Array | None = None,
    dims: int = 2,
    K: int = 3,
    n_samples: int = 300,
    seed: int = 42,
):
    key = jax.random.key(seed)

    if centers is None:
        key, key_centers = jax.random.split(key)
        centers = jax.random.normal(key_centers, shape=(K, dims)) * 5.0
    else:
        assert centers.shape == (K, dims)

    k_c, k_x = jax.random.split(key)
    assignments = jax.random.categorical(k_c, jnp.zeros(K), shape=(n_samples,))
    x = centers[assignments] + jax.random.normal(k_x, shape=(n_samples, dims))
    return x, centers


def run_bbvi(
    key: Array,
    log_joint_fn: Callable[[Array], float],
    shape: tuple[int, ...],
    n_iter: int = 2000,
    n_samples: int = 8,
    lr: float = 0.01,
):
    # Optimise log_sigma instead of sigma so that sigma = exp(log_sigma) > 0 always.
    mu = jnp.zeros(shape)
    log_sigma = jnp.full(shape, 0.0)

    optimizer = optax.adam(lr)
    opt_state = optimizer.init((mu, log_sigma))

    @jax.jit
    def neg_elbo(mu, log_sigma, key):
        sigma = jnp.exp(log_sigma)

        # Reparameterization trick: sample eps ~ N(0, I) and set z = mu + sigma * eps.
        eps = jax.random.normal(key, shape=(n_samples, *shape))
        z = mu + sigma * eps

        # Evaluate log p(x, z) for each sample
        log_p = jax.vmap(log_joint_fn)(z)

        # Sum over all axes except the first (sample) axis.
        latent_axes = tuple(range(1, len(shape) + 1))
        log_q = jnp.sum(
            -0.5 * jnp.log(2 * jnp.pi) - log_sigma - 0.5 * eps**2,
            axis=latent_axes,
        )

        # ELBO ≈ (1/S) sum_s [log p(x, z_s) - log q(z_s)]
        elbo = jnp.mean(log_p - log_q)
        return -elbo

    @jax.jit
    def step(mu, log_sigma, opt_state, key):
        loss, grads = value_and_grad(neg_elbo, argnums=(0, 1))(mu, log_sigma, key)
        updates, opt_state_new = optimizer.update(grads, opt_state, (mu, log_sigma))
        mu_new, log_sigma_new = optax.apply_updates((mu, log_sigma), updates)
        return mu_new, log_sigma_new, opt_state_new, loss

    elbos = []
    for _ in range(n_iter):
        key, subkey = jax.random.split(key)
        mu, log_sigma, opt_state, loss = step(mu, log_sigma, opt_state, subkey)
        elbos.append(-float(loss))

    sigma = jnp.exp(log_sigma)
    return mu, sigma, jnp.array(elbos)


K = 3
PRIOR_SIGMA = 5.0

x, centers = generate_gmm_dataset(K=K, n_samples=300, seed=42)
n, dim = x.shape


# log p(x, mu) with the discrete assignments c_i marginalised out.
def log_joint(mu):
    # log p(x | mu) with c marginalised out
    diff = x[:, None, :] - mu[None, :, :]  # (n, K, dim)
    log_components = (
        -0.5 * dim * jnp.log(2 * jnp.pi)
        - 0.5 * jnp.sum(diff**2, axis=2)
        + jnp.log(
            1.0 / K
        )  # This is because of p(c_i = k) = 1/K for all k, which we marginalise out
    )  # (n, K)
    log_lik = jnp.sum(jax.nn.logsumexp(log_components, axis=1))

    # log p(mu)
    log_prior = jnp.sum(
        -0.5 * dim * jnp.log(2 * jnp.pi * PRIOR_SIGMA**2)
        - 0.5 * jnp.sum(mu**2, axis=1) / PRIOR_SIGMA**2
    )

    return log_lik + log_prior


mu_est, sigma_est, elbos = run_bbvi(
    key=jax.random.key(123),
    log_joint_fn=log_joint,
    shape=(K, dim),
    n_iter=3000,
    n_samples=16,
    lr=0.02,
)

# Sort by first coordinate for display
order = jnp.argsort(mu_est[:, 0])
mu_sorted = mu_est[order]
sigma_sorted = sigma_est[order]
centers_sorted = centers[jnp.argsort(centers[:, 0])]

table = jnp.concatenate(
    [
        jnp.arange(K)[:, None],
        centers_sorted,
        mu_sorted,
        sigma_sorted,
    ],
    axis=1,
)
print(table.tolist())


if __name__ == "__main__":
    import logging

    records = []
    handler = logging.Handler()
    handler.emit = lambda r: records.append(r.getMessage())
    logging.getLogger("jax").addHandler(handler)
    jax.config.update("jax_log_compiles", True)
    counts = []
    for n_iter in (5, 20):
        records.clear()
        run_bbvi(jax.random.key(7), log_joint, (K, dim), n_iter=n_iter, n_samples=16, lr=0.02)
        counts.append(sum(m.startswith("Compiling jit(step)") for m in records))
    jax.config.update("jax_log_compiles", False)
    # the step compiles as its argument types settle, the same number of times for 5 and for 20 iterations
    assert counts[0] == counts[1] <= 3, counts
    # the ELBO rises and the estimated means approach the data's centers
    assert elbos[-20:].mean() > elbos[:20].mean()
    assert float(jnp.abs(mu_sorted - centers_sorted).max()) < 3.0, (mu_sorted, centers_sorted)
    print("OK")
