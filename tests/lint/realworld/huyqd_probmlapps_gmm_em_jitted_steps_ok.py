# source: https://github.com/huyqd/ProbML_Apps/blob/c7e71cfbdeb43177d3483a7047a6e40815fcc81c/23.em-algo.ipynb
#   (a user's lecture-notes notebook on the EM algorithm, written as blog posts following a
#   probabilistic-ML course: a Gaussian mixture fitted with jitted E- and M-steps)
# observed on jax 0.10.2 CPU: runs clean. The jitted e_step and m_step take only arrays and
#   read the number of components and the dimension from shapes (means.shape[0],
#   responsibilities.shape[1], X.shape), so their Python loops and jnp.zeros shapes are
#   static; each compiles once and EM converges. (The same author's K-Means and VGMM
#   notebooks pass those sizes as jit arguments instead, and fail.)
#   Changed: only the notebook cells 2, 5 and 7 are kept, as one script; the plotly plotting
#   helper, its imports and the plotting at the end of cell 7 are left out (plotly is not
#   installed). Added: the __main__ block, which checks the fit and that each step compiled
#   once.
# gap: exemption-vs-JAX
import jax.numpy as jnp
import jax
import numpy as np
from jax.scipy.stats import multivariate_normal as mvn

# Set JAX to use 64-bit floats for numerical stability
jax.config.update("jax_enable_x64", True)

def generate_gmm_data(num_samples=300, num_components=3, random_seed=42):
    """Generates synthetic data from a Gaussian Mixture Model."""
    np.random.seed(random_seed)
    
    # True parameters for 3 components
    true_weights = np.array([0.3, 0.4, 0.3])
    true_means = np.array([
        [0, 0],
        [3, 3],
        [0, 4]
    ])
    true_covariances = np.array([
        [[0.5, 0.2], [0.2, 0.5]],
        [[0.8, -0.1], [-0.1, 0.8]],
        [[0.6, 0.3], [0.3, 0.6]]
    ])

    X = []
    for _ in range(num_samples):
        # Choose a component based on weights
        k = np.random.choice(num_components, p=true_weights)
        # Sample from the chosen Gaussian
        sample = np.random.multivariate_normal(true_means[k], true_covariances[k])
        X.append(sample)
    
    return jnp.array(X), true_weights, true_means, true_covariances

# --- EM Algorithm for Gaussian Mixture Models ---

def initialize_gmm_params(X, num_components, key):
    """Randomly initializes GMM parameters (means, covariances, weights)."""
    num_samples, data_dim = X.shape

    key, subkey_means, subkey_covs, subkey_weights = jax.random.split(key, 4)

    # Initialize means by randomly picking data points
    random_indices = jax.random.choice(subkey_means, num_samples, (num_components,), replace=False)
    means = X[random_indices]

    # Initialize covariances to identity matrices (or small diagonal)
    covariances = jnp.array([jnp.eye(data_dim) * 0.1 for _ in range(num_components)])

    # Initialize weights uniformly
    weights = jnp.ones(num_components) / num_components

    return means, covariances, weights

@jax.jit
def e_step(X, means, covariances, weights):
    """Computes responsibilities (rnk) for the GMM."""
    num_samples, _ = X.shape
    num_components = means.shape[0]

    # Compute log-likelihood for each data point under each component
    log_likelihoods = jnp.zeros((num_samples, num_components))
    for k in range(num_components):
        # Add a small regularization to covariance to prevent singularity
        reg_cov = covariances[k] + jnp.eye(covariances[k].shape[0]) * 1e-6
        log_likelihoods = log_likelihoods.at[:, k].set(mvn.logpdf(X, means[k], reg_cov))

    # Compute log(p(x_n, z_n=k)) = log(pi_k) + log(N(x_n | mu_k, Sigma_k))
    log_joint = log_likelihoods + jnp.log(weights)

    # Compute log(sum_k p(x_n, z_n=k)) for normalization
    log_sum_exp = jax.nn.logsumexp(log_joint, axis=1, keepdims=True)

    # Compute responsibilities (rnk) = p(z_n=k | x_n) = exp(log_joint - log_sum_exp)
    responsibilities = jnp.exp(log_joint - log_sum_exp)

    return responsibilities

@jax.jit
def m_step(X, responsibilities):
    """Updates GMM parameters (means, covariances, weights)."""
    num_samples, data_dim = X.shape
    num_components = responsibilities.shape[1]

    # Update weights
    Nk = jnp.sum(responsibilities, axis=0) # Sum of responsibilities for each component
    new_weights = Nk / num_samples

    # Update means
    new_means = jnp.dot(responsibilities.T, X) / Nk[:, jnp.newaxis]

    # Update covariances
    new_covariances = jnp.zeros((num_components, data_dim, data_dim))
    for k in range(num_components):
        diff = X - new_means[k]
        # Weighted outer product sum
        weighted_outer_product = jnp.dot((responsibilities[:, k] * diff.T), diff)
        new_covariances = new_covariances.at[k].set(weighted_outer_product / Nk[k])
        # Add a small diagonal term for numerical stability, especially if a component gets very few points
        new_covariances = new_covariances.at[k].set(new_covariances[k] + jnp.eye(data_dim) * 1e-6)

    return new_means, new_covariances, new_weights

def compute_log_likelihood(X, means, covariances, weights):
    """Computes the total log-likelihood of the data under the GMM."""
    num_samples, _ = X.shape
    num_components = means.shape[0]

    log_likelihoods_per_component = jnp.zeros((num_samples, num_components))
    for k in range(num_components):
        reg_cov = covariances[k] + jnp.eye(covariances[k].shape[0]) * 1e-6
        log_likelihoods_per_component = log_likelihoods_per_component.at[:, k].set(mvn.logpdf(X, means[k], reg_cov))

    # log(sum_k pi_k * N(x_n | mu_k, Sigma_k))
    log_weighted_likelihoods = log_likelihoods_per_component + jnp.log(weights)
    total_log_likelihood = jnp.sum(jax.nn.logsumexp(log_weighted_likelihoods, axis=1))
    return total_log_likelihood

def run_gmm_em(X, num_components, max_iter=100, tol=1e-4, key=None):
    """
    Runs the EM algorithm for Gaussian Mixture Models.
    Returns final parameters, log-likelihood history, and responsibilities.
    """
    if key is None:
        key = jax.random.PRNGKey(0)

    means, covariances, weights = initialize_gmm_params(X, num_components, key)
    log_likelihood_history = []

    print("Starting EM for GMM...")
    for i in range(max_iter):
        # E-step
        responsibilities = e_step(X, means, covariances, weights)

        # M-step
        new_means, new_covariances, new_weights = m_step(X, responsibilities)

        # Compute log-likelihood for convergence check
        current_log_likelihood = compute_log_likelihood(X, new_means, new_covariances, new_weights)
        log_likelihood_history.append(current_log_likelihood)

        # Check for convergence
        if i > 0 and jnp.abs(current_log_likelihood - log_likelihood_history[-2]) < tol:
            print(f"EM converged in {i+1} iterations. Log-likelihood: {current_log_likelihood:.4f}")
            break

        means, covariances, weights = new_means, new_covariances, new_weights
    else:
        print(f"EM did not converge after {max_iter} iterations. Final log-likelihood: {current_log_likelihood:.4f}")

    return means, covariances, weights, log_likelihood_history, responsibilities

# --- Main Execution: GMM EM Example ---

# 1. Generate synthetic GMM data
num_samples = 500
num_components = 3
X_gmm, true_weights, true_means, true_covariances = generate_gmm_data(num_samples, num_components)

print("True GMM Parameters:")
print("  Weights:", true_weights)
print("  Means:\n", true_means)
print("  Covariances:\n", true_covariances)

# 2. Run the EM algorithm
em_key = jax.random.PRNGKey(10)
estimated_means, estimated_covariances, estimated_weights, ll_history, final_responsibilities = \
    run_gmm_em(X_gmm, num_components, max_iter=200, tol=1e-5, key=em_key)

print("\nEstimated GMM Parameters after EM:")
print("  Weights:", estimated_weights)
print("  Means:\n", estimated_means)
print("  Covariances:\n", estimated_covariances)


if __name__ == "__main__":
    r = e_step(X_gmm, estimated_means, estimated_covariances, estimated_weights)
    assert r.shape == (num_samples, num_components)
    assert bool(jnp.allclose(r.sum(axis=1), 1.0))
    assert bool(jnp.allclose(estimated_weights.sum(), 1.0))
    assert e_step._cache_size() == 1 and m_step._cache_size() == 1
