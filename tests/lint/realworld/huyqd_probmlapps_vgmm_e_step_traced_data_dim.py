# source: https://github.com/huyqd/ProbML_Apps/blob/c7e71cfbdeb43177d3483a7047a6e40815fcc81c/24.variational-inference.ipynb
#   (a user's lecture-notes notebook, "Variational Inference", written as blog posts following
#   a probabilistic-ML course: a variational Gaussian mixture with jitted E- and M-steps)
# observed on jax 0.10.2 CPU: run_vgmm_vi passes the Python int `data_dim` to the jitted
#   vgmm_e_step as an ordinary (traced) argument; E_log_det_inv_Sigma then builds
#   jnp.arange(1, data_dim + 1) from the tracer and jit raises ConcretizationTypeError
#   ("The error occurred while tracing the function vgmm_e_step ... argument data_dim").
#   Changed: only the notebook cells 4, 6 and 8 are kept, as one script; the plotly
#   plotting helper and the plotting/printing after the run_vgmm_vi call (cell 8 steps 4-6)
#   are left out (plotly is not installed and nothing after the call is reached); the
#   plotly imports are dropped.
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

def initialize_vgmm_params(X, num_components, key, prior_params):
    """Initializes variational parameters for VGMM (alpha, beta, m, W, nu)."""
    num_samples, data_dim = X.shape
    
    # Unpack prior parameters
    alpha_prior = prior_params['alpha']
    beta_prior = prior_params['beta']
    m_prior = prior_params['m']
    W_prior = prior_params['W']
    nu_prior = prior_params['nu']

    key, subkey_means = jax.random.split(key)
    
    # Initialize variational parameters for q(z) - responsibilities (rnk)
    # A common initialization is to use k-means to get initial clusters, then assign responsibilities
    # For simplicity, we'll randomly assign points to components initially, then compute responsibilities
    initial_assignments = jax.random.randint(subkey_means, (num_samples,), 0, num_components)
    initial_responsibilities = jax.nn.one_hot(initial_assignments, num_classes=num_components)

    # Initialize variational parameters for q(pi) - Dirichlet parameters (alpha_k)
    # Based on initial responsibilities, plus prior
    alpha_k = alpha_prior + jnp.sum(initial_responsibilities, axis=0)

    # Initialize variational parameters for q(mu_k, Sigma_k) - Normal-Wishart parameters
    # (beta_k, m_k, W_k, nu_k)
    beta_k = jnp.array([beta_prior] * num_components)
    m_k = jnp.zeros((num_components, data_dim))
    W_k = jnp.array([W_prior] * num_components) # W_k is inverse covariance scale
    nu_k = jnp.array([nu_prior] * num_components)

    # Compute initial means and covariances from initial responsibilities to set m_k, W_k
    Nk_initial = jnp.sum(initial_responsibilities, axis=0)
    for k in range(num_components):
        if Nk_initial[k] > 0: # Avoid division by zero for empty clusters
            m_k = m_k.at[k].set(jnp.sum(initial_responsibilities[:, k, jnp.newaxis] * X, axis=0) / Nk_initial[k])
            diff = X - m_k[k]
            weighted_outer_product = jnp.dot((initial_responsibilities[:, k] * diff.T), diff)
            W_k_inv_initial = weighted_outer_product / Nk_initial[k]
            W_k = W_k.at[k].set(jnp.linalg.inv(W_k_inv_initial + jnp.eye(data_dim) * 1e-6)) # Add regularization
        else:
            # If a component is empty, initialize its mean randomly and covariance to identity/prior
            key, subkey_m = jax.random.split(key)
            m_k = m_k.at[k].set(jax.random.normal(subkey_m, (data_dim,)) * 0.1)
            W_k = W_k.at[k].set(jnp.eye(data_dim))
        
    # Ensure W_k is positive definite (inverse of covariance)
    W_k = jnp.array([w + jnp.eye(data_dim) * 1e-6 for w in W_k])

    return {'alpha_k': alpha_k, 'beta_k': beta_k, 'm_k': m_k, 'W_k': W_k, 'nu_k': nu_k}

# --- Expected values needed for VI updates ---
def E_log_pi(alpha_k):
    """Expected value of log(pi_k) under q(pi) = Dir(alpha_k)."""
    return digamma(alpha_k) - digamma(jnp.sum(alpha_k))

def E_log_det_inv_Sigma(W_k, nu_k, data_dim):
    """Expected value of log(|Sigma_k^-1|) under q(mu_k, Sigma_k) = Normal-Wishart."""
    # This is E[log|Lambda_k|] where Lambda_k = Sigma_k^-1
    # E[log|Lambda|] = sum_{d=1}^D digamma((nu + 1 - d)/2) + D log(2) + log|W|
    sum_digamma_terms = jnp.sum(digamma((nu_k[:, jnp.newaxis] + 1 - jnp.arange(1, data_dim + 1)) / 2), axis=1)  # expect: JIT404
    log_det_W = jnp.linalg.slogdet(W_k)[1] # slogdet returns (sign, log_abs_det)
    return sum_digamma_terms + data_dim * jnp.log(2) + log_det_W

def E_Sigma_inv(W_k, nu_k):
    """Expected value of Sigma_k^-1 under q(mu_k, Sigma_k) = Normal-Wishart."""
    # E[Lambda_k] = nu_k * W_k
    return nu_k[:, jnp.newaxis, jnp.newaxis] * W_k

def E_mu_Sigma_inv_mu(m_k, beta_k, E_Sigma_inv_k):
    """Expected value of mu_k^T Sigma_k^-1 mu_k under q(mu_k, Sigma_k)."""
    # E[mu^T Lambda mu] = m^T Lambda m + D / beta
    # This is for a single component. Need to vectorize over components.
    term1 = jnp.einsum('kd,kdj,kj->k', m_k, E_Sigma_inv_k, m_k) # m_k^T E[Sigma_k^-1] m_k
    term2 = m_k.shape[1] / beta_k # D / beta_k
    return term1 + term2

@jax.jit
def vgmm_e_step(X, variational_params, data_dim):
    """Performs the E-step for VGMM: updates responsibilities (rnk)."""
    alpha_k = variational_params['alpha_k']
    beta_k = variational_params['beta_k']
    m_k = variational_params['m_k']
    W_k = variational_params['W_k']
    nu_k = variational_params['nu_k']

    num_samples, _ = X.shape
    num_components = alpha_k.shape[0]

    # Compute expected values of log-likelihood terms
    E_log_pi_k = E_log_pi(alpha_k)
    E_log_det_inv_Sigma_k = E_log_det_inv_Sigma(W_k, nu_k, data_dim)
    E_Sigma_inv_k = E_Sigma_inv(W_k, nu_k)

    log_rho_nk = jnp.zeros((num_samples, num_components))
    for k in range(num_components):
        # E[ (x_n - mu_k)^T Sigma_k^-1 (x_n - mu_k) ]
        # = E[ x_n^T Sigma_k^-1 x_n - 2 x_n^T Sigma_k^-1 mu_k + mu_k^T Sigma_k^-1 mu_k ]
        # = x_n^T E[Sigma_k^-1] x_n - 2 x_n^T E[Sigma_k^-1 mu_k] + E[mu_k^T Sigma_k^-1 mu_k]
        # E[Sigma_k^-1 mu_k] = E[Sigma_k^-1] m_k (since mu_k | Sigma_k ~ N(m_k, Sigma_k/beta_k))
        # E[mu_k^T Sigma_k^-1 mu_k] = m_k^T E[Sigma_k^-1] m_k + D / beta_k

        term_quadratic = jnp.einsum('nd,dj,nj->n', X, E_Sigma_inv_k[k], X) # x_n^T E[Sigma_k^-1] x_n
        term_linear = 2 * jnp.einsum('nd,dj,j->n', X, E_Sigma_inv_k[k], m_k[k]) # 2 x_n^T E[Sigma_k^-1] m_k
        term_mu_quad = jnp.einsum('d,dj,j->', m_k[k], E_Sigma_inv_k[k], m_k[k]) + data_dim / beta_k[k] # E[mu_k^T Sigma_k^-1 mu_k]

        E_quadratic_form = term_quadratic - term_linear + term_mu_quad

        log_rho_nk = log_rho_nk.at[:, k].set(
            E_log_pi_k[k] + 0.5 * E_log_det_inv_Sigma_k[k] - 0.5 * E_quadratic_form
        )

    # Normalize log_rho_nk to get responsibilities (rnk)
    responsibilities = jax.nn.softmax(log_rho_nk, axis=1)

    return responsibilities

@jax.jit
def vgmm_m_step(X, responsibilities, prior_params):
    """Performs the M-step for VGMM: updates variational parameters (alpha_k, beta_k, m_k, W_k, nu_k)."""
    num_samples, data_dim = X.shape
    num_components = responsibilities.shape[1]

    # Unpack prior parameters
    alpha_prior = prior_params['alpha']
    beta_prior = prior_params['beta']
    m_prior = prior_params['m']
    W_prior = prior_params['W']
    nu_prior = prior_params['nu']

    # Compute Nk and x_bar_k (weighted sum and mean for each component)
    Nk = jnp.sum(responsibilities, axis=0) # Sum of responsibilities for each component
    x_bar_k = jnp.dot(responsibilities.T, X) / (Nk[:, jnp.newaxis] + 1e-9) # Add epsilon for stability

    # Update alpha_k (Dirichlet parameters)
    new_alpha_k = alpha_prior + Nk

    # Update beta_k (Normal-Wishart beta parameter)
    new_beta_k = beta_prior + Nk

    # Update m_k (Normal-Wishart mean parameter)
    new_m_k = (beta_prior * m_prior + Nk[:, jnp.newaxis] * x_bar_k) / (new_beta_k[:, jnp.newaxis] + 1e-9)

    # Update nu_k (Normal-Wishart degrees of freedom parameter)
    new_nu_k = nu_prior + Nk

    # Update W_k (Normal-Wishart inverse covariance scale parameter)
    new_W_k = jnp.zeros((num_components, data_dim, data_dim))
    for k in range(num_components):
        # S_k = weighted covariance for component k
        diff_x_bar = X - x_bar_k[k]
        Sk = jnp.dot((responsibilities[:, k] * diff_x_bar.T), diff_x_bar) / (Nk[k] + 1e-9)
        
        # Term for (x_bar_k - m_prior)(x_bar_k - m_prior)^T
        diff_m_prior = x_bar_k[k] - m_prior
        term_prior_mean_diff = (beta_prior * Nk[k] / (beta_prior + Nk[k] + 1e-9)) * jnp.outer(diff_m_prior, diff_m_prior)
        
        # (W_k^{new})^{-1} = (W^{prior})^{-1} + Nk * Sk + term_prior_mean_diff
        new_W_k_inv = jnp.linalg.inv(W_prior) + Nk[k] * Sk + term_prior_mean_diff
        new_W_k = new_W_k.at[k].set(jnp.linalg.inv(new_W_k_inv + jnp.eye(data_dim) * 1e-6)) # Add regularization

    return {'alpha_k': new_alpha_k, 'beta_k': new_beta_k, 'm_k': new_m_k, 'W_k': new_W_k, 'nu_k': new_nu_k}

def compute_elbo(X, responsibilities, variational_params, prior_params, data_dim):
    """Computes the Evidence Lower Bound (ELBO) for VGMM."""
    alpha_k = variational_params['alpha_k']
    beta_k = variational_params['beta_k']
    m_k = variational_params['m_k']
    W_k = variational_params['W_k']
    nu_k = variational_params['nu_k']

    alpha_prior = prior_params['alpha']
    beta_prior = prior_params['beta']
    m_prior = prior_params['m']
    W_prior = prior_params['W']
    nu_prior = prior_params['nu']

    num_samples, _ = X.shape
    num_components = alpha_k.shape[0]

    # Expected values needed for ELBO calculation
    E_log_pi_k = E_log_pi(alpha_k)
    E_log_det_inv_Sigma_k = E_log_det_inv_Sigma(W_k, nu_k, data_dim)
    E_Sigma_inv_k = E_Sigma_inv(W_k, nu_k)

    # Term 1: E[log p(X | Z, mu, Sigma)]
    term1 = 0.0
    for k in range(num_components):
        E_quadratic_form_k = jnp.einsum('nd,dj,nj->n', X, E_Sigma_inv_k[k], X) \
                           - 2 * jnp.einsum('nd,dj,j->n', X, E_Sigma_inv_k[k], m_k[k]) \
                           + (jnp.einsum('d,dj,j->', m_k[k], E_Sigma_inv_k[k], m_k[k]) + data_dim / beta_k[k])
        term1 += jnp.sum(responsibilities[:, k] * (0.5 * E_log_det_inv_Sigma_k[k] - 0.5 * E_quadratic_form_k - 0.5 * data_dim * jnp.log(2 * jnp.pi)))

    # Term 2: E[log p(Z | pi)]
    term2 = jnp.sum(responsibilities * E_log_pi_k)

    # Term 3: E[log p(pi)] - prior on pi
    term3 = gammaln(jnp.sum(alpha_prior)) - jnp.sum(gammaln(alpha_prior)) + jnp.sum((alpha_prior - 1) * E_log_pi_k)

    # Term 4: E[log p(mu, Sigma)] - prior on mu, Sigma
    term4 = 0.0
    for k in range(num_components):
        # E[log p(mu_k, Sigma_k)] = E[log N(mu_k | m, Sigma_k/beta) + log Wishart(Sigma_k^-1 | W, nu)]
        # This is the log normalization constant for Normal-Wishart + terms involving expectations
        # See Bishop PRML, Chapter 10, Eq. 10.74 for terms
        log_norm_wishart = nu_prior[k] * jnp.linalg.slogdet(W_prior)[1] / 2 + (nu_prior[k] * data_dim / 2) * jnp.log(2) + data_dim * (data_dim - 1) / 4 * jnp.log(jnp.pi) - jnp.sum(gammaln((nu_prior[k] + 1 - jnp.arange(1, data_dim + 1)) / 2))
        
        term4_k = 0.5 * data_dim * jnp.log(beta_prior / (2 * jnp.pi)) + 0.5 * E_log_det_inv_Sigma_k[k] \
                - 0.5 * beta_prior * (jnp.einsum('d,dj,j->', m_prior, E_Sigma_inv_k[k], m_prior) + data_dim / beta_k[k] \
                                     - 2 * jnp.einsum('d,dj,j->', m_prior, E_Sigma_inv_k[k], m_k[k]) \
                                     + jnp.einsum('d,dj,j->', m_k[k], E_Sigma_inv_k[k], m_k[k]) \
                                     + data_dim / beta_k[k] # This term is E[ (m_prior - mu_k)^T Sigma_k^-1 (m_prior - mu_k) ]
                                     )
        term4 += term4_k # This is an approximation for now, full term is complex

    # Term 5: E[log q(Z)] - entropy of q(Z)
    term5 = -jnp.sum(responsibilities * jnp.log(responsibilities + 1e-9)) # Add epsilon for log(0) stability

    # Term 6: E[log q(pi)] - entropy of q(pi)
    alpha_sum = jnp.sum(alpha_k)
    term6 = - (jnp.sum((alpha_k - 1) * E_log_pi_k) + gammaln(alpha_sum) - jnp.sum(gammaln(alpha_k)))

    # Term 7: E[log q(mu, Sigma)] - entropy of q(mu, Sigma)
    term7 = 0.0
    for k in range(num_components):
        # Entropy of Normal-Wishart. See Bishop PRML, Chapter 10, Eq. 10.77
        term7_k = - (0.5 * E_log_det_inv_Sigma_k[k] + 0.5 * data_dim * jnp.log(beta_k[k] / (2 * jnp.pi)) \
                     - 0.5 * data_dim - 0.5 * beta_k[k] * data_dim / beta_k[k] \
                     + 0.5 * (nu_k[k] - data_dim - 1) * E_log_det_inv_Sigma_k[k] \
                     + 0.5 * nu_k[k] * data_dim \
                     + jnp.sum(gammaln((nu_k[k] + 1 - jnp.arange(1, data_dim + 1)) / 2)) \
                     - nu_k[k] * jnp.linalg.slogdet(W_k[k])[1] / 2 - nu_k[k] * data_dim / 2 * jnp.log(2) \
                    )
        term7 += term7_k

    elbo = term1 + term2 + term3 + term4 + term5 + term6 + term7
    return elbo

def run_vgmm_vi(X, num_components, prior_params, max_iter=200, tol=1e-5, key=None):
    """Runs the Variational Inference algorithm for Gaussian Mixture Models."""
    if key is None:
        key = jax.random.PRNGKey(0)

    num_samples, data_dim = X.shape

    # Initialize variational parameters
    variational_params = initialize_vgmm_params(X, num_components, key, prior_params)
    elbo_history = []

    print("Starting Variational Inference for VGMM...")
    for i in range(max_iter):
        # E-step (Update responsibilities)
        responsibilities = vgmm_e_step(X, variational_params, data_dim)

        # M-step (Update variational parameters for pi, mu, Sigma)
        variational_params = vgmm_m_step(X, responsibilities, prior_params)

        # Compute ELBO for convergence check
        current_elbo = compute_elbo(X, responsibilities, variational_params, prior_params, data_dim)
        elbo_history.append(current_elbo)

        # Check for convergence
        if i > 0 and jnp.abs(current_elbo - elbo_history[-2]) < tol:
            print(f"VI converged in {i+1} iterations. ELBO: {current_elbo:.4f}")
            break
    else:
        print(f"VI did not converge after {max_iter} iterations. Final ELBO: {current_elbo:.4f}")

    return variational_params, elbo_history, responsibilities

# --- Main Execution: VGMM VI Example ---

# 1. Generate synthetic GMM data
num_samples = 500
num_components = 6 # Start with more components than true to see pruning effect
X_vgmm, true_weights, true_means, true_covariances = generate_gmm_data(num_samples, num_components=3, random_seed=42)

print("Generated Data Shape:", X_vgmm.shape)

# 2. Define prior parameters for VGMM
data_dim = X_vgmm.shape[1]
prior_params = {
    'alpha': jnp.ones(num_components) * 1.0, # Dirichlet concentration parameter (flat prior)
    'beta': jnp.array([1.0] * num_components), # Normal-Wishart beta (precision scaling)
    'm': jnp.mean(X_vgmm, axis=0), # Normal-Wishart mean (centered at data mean)
    'W': jnp.array([jnp.eye(data_dim) * 0.1] * num_components), # Normal-Wishart W (inverse covariance scale)
    'nu': jnp.array([data_dim] * num_components) # Normal-Wishart nu (degrees of freedom)
}

# 3. Run the VGMM VI algorithm
vi_key = jax.random.PRNGKey(50)
variational_params, elbo_history, final_responsibilities = \
    run_vgmm_vi(X_vgmm, num_components, prior_params, max_iter=300, tol=1e-6, key=vi_key)
