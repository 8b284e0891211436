# source: https://github.com/huyqd/ProbML_Apps/blob/c7e71cfbdeb43177d3483a7047a6e40815fcc81c/25.historical-perspective.ipynb
#   (a user's lecture-notes notebook, "historical perspective", written as blog posts following
#   a probabilistic-ML course: K-Means with jitted assignment and mean-update steps)
# observed on jax 0.10.2 CPU: run_kmeans passes the Python int `num_components` to the
#   jitted update_means as an ordinary argument, so it is a tracer there and
#   jnp.zeros((num_components, X.shape[1])) raises TypeError ("Shapes must be 1D sequences
#   of concrete values of integer type, got (JitTracer(~int64[]), 2)"). The lines after it
#   never run: `for k in range(num_components)` on the same tracer would raise next
#   (tolerated), and with num_components static the boolean mask X[assignments == k] on
#   traced assignments would raise NonConcreteBooleanIndexError (tolerated).
#   Changed: only the notebook cells 4 and 6 are kept, as one script; the plotly plotting
#   helper and everything in cell 6 after the run_kmeans call (printing and plotting) are
#   left out (plotly is not installed and nothing after the call is reached); the plotly
#   imports are dropped.
# gap: other
import jax.numpy as jnp
import jax
import numpy as np
from jax.scipy.stats import multivariate_normal as mvn
from jax.scipy.special import digamma, gammaln # For Dirichlet and Wishart expectations

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

# --- K-Means Implementation ---
@jax.jit
def assign_to_clusters(X, means):
    """Assigns each data point to the closest mean."""
    # Compute squared Euclidean distance from each point to each mean
    diff = X[:, jnp.newaxis, :] - means[jnp.newaxis, :, :]
    distances_sq = jnp.sum(diff**2, axis=-1)
    # Get the index of the closest mean for each point
    assignments = jnp.argmin(distances_sq, axis=1)
    return assignments

@jax.jit
def update_means(X, assignments, num_components):
    """Updates the means based on current assignments."""
    new_means = jnp.zeros((num_components, X.shape[1]))  # expect: JIT404
    for k in range(num_components):  # tolerate: JIT104
        # Get points assigned to cluster k
        cluster_points = X[assignments == k]  # tolerate: JIT403
        if cluster_points.shape[0] > 0:
            new_means = new_means.at[k].set(jnp.mean(cluster_points, axis=0))
        else:
            # If a cluster becomes empty, keep its mean or re-initialize (here, keep)
            new_means = new_means.at[k].set(new_means[k]) # No change
    return new_means

def run_kmeans(X, num_components, max_iter=100, tol=1e-4, key=None):
    """Runs the K-Means clustering algorithm."""
    if key is None:
        key = jax.random.PRNGKey(0)

    num_samples, data_dim = X.shape

    # Initialize means randomly from data points
    key, subkey_init = jax.random.split(key)
    random_indices = jax.random.choice(subkey_init, num_samples, (num_components,), replace=False)
    means = X[random_indices]

    prev_assignments = None
    history_means = [means]

    print(f"Starting K-Means with {num_components} clusters...")
    for i in range(max_iter):
        # E-step-like: Assign points to clusters
        assignments = assign_to_clusters(X, means)

        # M-step-like: Update cluster means
        new_means = update_means(X, assignments, num_components)

        # Check for convergence
        if prev_assignments is not None and jnp.all(assignments == prev_assignments):
            print(f"K-Means converged in {i+1} iterations.")
            break

        means = new_means
        prev_assignments = assignments
        history_means.append(means)
    else:
        print(f"K-Means did not converge after {max_iter} iterations.")

    # Compute final responsibilities for plotting
    final_assignments = assign_to_clusters(X, means)
    final_responsibilities = jax.nn.one_hot(final_assignments, num_classes=num_components)

    return means, final_responsibilities, history_means

# --- Main Execution: K-Means Example ---

# 1. Generate synthetic GMM data (similar to previous lectures)
num_samples_kmeans = 500
num_components_kmeans = 3
X_kmeans, _, _, _ = generate_gmm_data(num_samples_kmeans, num_components_kmeans, random_seed=42)

print("Generated Data Shape for K-Means:", X_kmeans.shape)

# 2. Run the K-Means algorithm
kmeans_key = jax.random.PRNGKey(100)
estimated_means_kmeans, final_responsibilities_kmeans, history_means_kmeans = \
    run_kmeans(X_kmeans, num_components_kmeans, max_iter=100, key=kmeans_key)
