# source: https://github.com/RobertTLange/code-and-blog/blob/a727390b8668dbf7352759220666548e2d1a0e2d/07_neuroevolution/cma_es_toy.py
# observed on jax 0.10.2 CPU: runs clean; 50 generations of CMA-ES on each of the three 2-d toy problems print decreasing fitness
# gap: exemption-vs-JAX
# (added: init_cma_es, eigen_decomposition, init_logger, update_logger and the batched toy functions of 07_neuroevolution/helpers/es_helpers.py at the same commit, copied in place of
#  `from helpers.es_helpers import ...`; its unused sample/check_termination left out; renamed old API: jax.ops.index_update(weights, jax.ops.index[mu:], 0) -> weights.at[mu:].set(0))
import jax
import jax.numpy as jnp
from jax import jit, vmap, lax
import functools


def init_cma_es(mean_init, sigma_init, population_size, mu):
    ''' Initialize evolutionary strategy & learning rates. '''
    n_dim = mean_init.shape[0]
    weights_prime = jnp.array(
        [jnp.log((population_size + 1) / 2) - jnp.log(i + 1)
         for i in range(population_size)])
    mu_eff = ((jnp.sum(weights_prime[:mu]) ** 2) /
               jnp.sum(weights_prime[:mu] ** 2))
    mu_eff_minus = ((jnp.sum(weights_prime[mu:]) ** 2) /
                     jnp.sum(weights_prime[mu:] ** 2))

    # lrates for rank-one and rank-μ C updates
    alpha_cov = 2
    c_1 = alpha_cov / ((n_dim + 1.3) ** 2 + mu_eff)
    c_mu = jnp.minimum(1 - c_1 - 1e-8, alpha_cov * (mu_eff - 2 + 1 / mu_eff)
              / ((n_dim + 2) ** 2 + alpha_cov * mu_eff / 2))
    min_alpha = min(1 + c_1 / c_mu,
                    1 + (2 * mu_eff_minus) / (mu_eff + 2),
                    (1 - c_1 - c_mu) / (n_dim * c_mu))
    positive_sum = jnp.sum(weights_prime[weights_prime > 0])
    negative_sum = jnp.sum(jnp.abs(weights_prime[weights_prime < 0]))
    weights = jnp.where(weights_prime >= 0,
                       1 / positive_sum * weights_prime,
                       min_alpha / negative_sum * weights_prime,)
    weights_truncated = weights.at[mu:].set(0)
    c_m = 1

    # lrate for cumulation of step-size control and rank-one update
    c_sigma = (mu_eff + 2) / (n_dim + mu_eff + 5)
    d_sigma = 1 + 2 * jnp.maximum(0, jnp.sqrt((mu_eff - 1) / (n_dim + 1)) - 1) + c_sigma
    c_c = (4 + mu_eff / n_dim) / (n_dim + 4 + 2 * mu_eff / n_dim)
    chi_d = jnp.sqrt(n_dim) * (
        1.0 - (1.0 / (4.0 * n_dim)) + 1.0 / (21.0 * (n_dim ** 2)))

    # Initialize evolution paths & covariance matrix
    p_sigma = jnp.zeros(n_dim)
    p_c = jnp.zeros(n_dim)
    C, D, B = jnp.eye(n_dim), None, None

    memory = {"p_sigma": p_sigma, "p_c": p_c, "sigma": sigma_init,
              "mean": mean_init, "C": C, "D": D, "B": B,
              "generation": 0}

    params = {"mu_eff": mu_eff,
              "c_1": c_1, "c_mu": c_mu, "c_m": c_m,
              "c_sigma": c_sigma, "d_sigma": d_sigma,
              "c_c": c_c, "chi_d": chi_d,
              "weights": weights,
              "weights_truncated": weights_truncated,
              "pop_size": population_size,
              "n_dim": n_dim,
              "tol_x": 1e-12 * sigma_init,
              "tol_x_up": 1e4,
              "tol_fun": 1e-12,
              "tol_condition_C": 1e14,
              "min_generations": 10}
    return params, memory

@jax.jit
def eigen_decomposition(C, B, D):
    """ Perform eigendecomposition of covariance matrix. """
    if B is not None and D is not None:
        return C, B, D
    C = (C + C.T) / 2
    D2, B = jnp.linalg.eigh(C)
    D = jnp.sqrt(jnp.where(D2 < 0, 1e-20, D2))
    C = jnp.dot(jnp.dot(B, jnp.diag(D ** 2)), B.T)
    return C, B, D


def init_logger(top_k, num_params):
    evo_logger = {"top_values": jnp.zeros(top_k) + 1e10,
                  "top_params": jnp.zeros((top_k, num_params)),
                  "log_top_1": [],
                  "log_top_mean": [],
                  "log_top_std": [],
                  "log_gen_1": [],
                  "log_gen_mean": [],
                  "log_gen_std": [],
                  "log_sigma": [],
                  "log_gen": []}
    return evo_logger


def update_logger(evo_logger, x, fitness, memory, top_k, verbose=False):
    """ Helper function to keep track of top solutions. """
    # Check if there are solutions better than current archive
    vals = jnp.hstack([evo_logger["top_values"], fitness])
    params = jnp.vstack([evo_logger["top_params"], x])
    concat_top = jnp.hstack([jnp.expand_dims(vals, 1), params])
    sorted_top = concat_top[concat_top[:, 0].argsort()]

    # Importantly: Params are stored as flat vectors
    evo_logger["top_values"] = sorted_top[:top_k, 0]
    evo_logger["top_params"] = sorted_top[:top_k, 1:]
    evo_logger["log_top_1"].append(evo_logger["top_values"][0])
    evo_logger["log_top_mean"].append(jnp.mean(evo_logger["top_values"]))
    evo_logger["log_top_std"].append(jnp.std(evo_logger["top_values"]))
    evo_logger["log_gen_1"].append(jnp.min(fitness))
    evo_logger["log_gen_mean"].append(jnp.mean(fitness))
    evo_logger["log_gen_std"].append(jnp.std(fitness))
    evo_logger["log_sigma"].append(memory["sigma"])
    evo_logger["log_gen"].append(memory["generation"])

    if verbose:
        print(evo_logger["log_gen"][-1], evo_logger["top_values"])
    return evo_logger


def rosenbrock_d_dim(x):
    ''' D-Dim. Rosenbrock Fct. Evaluation. '''
    x_i, x_sq, x_p = x[:-1], x[:-1]**2, x[1:]
    return jnp.sum((1 - x_i)**2 + 100*(x_p-x_sq)**2)


def himmelblau_fct(x):
    ''' 2-dim. Himmelblau function. '''
    return (x[0]**2 + x[1] - 11)**2 + (x[0] + x[1]**2 - 7)**2


def six_hump_camel_fct(x):
    ''' 2-dim. 6-Hump Camel function. '''
    p1 = (4 - 2.1*x[0]**2 + x[0]**4/3)*x[0]**2
    p2 = x[0] * x[1]
    p3 = (-4 + 4*x[1]**2)*x[1]**2
    return p1 + p2 + p3


# Toy Problem Evaluation Batch-Jitted Versions
batch_rosenbrock = jit(vmap(rosenbrock_d_dim, in_axes=(0,),
                            out_axes=0))

batch_himmelblau = jit(vmap(himmelblau_fct, in_axes=(0,),
                            out_axes=0))

batch_hump_camel = jit(vmap(six_hump_camel_fct, in_axes=(0,),
                            out_axes=0))


def ask(rng, params, memory):
    """ Propose parameters to evaluate next. """
    C, B, D = eigen_decomposition(memory["C"], memory["B"], memory["D"])
    x = sample(rng, memory, B, D, params["n_dim"], params["pop_size"])
    memory["C"], memory["B"], memory["D"] = C, B, D
    return x, memory

@functools.partial(jit, static_argnums=(4, 5))
def sample(rng, memory, B, D, n_dim, pop_size):
    """ Jittable Multivariate Gaussian Sample Helper. """
    z = jax.random.normal(rng, (n_dim, pop_size)) # ~ N(0, I)
    y = B.dot(jnp.diag(D)).dot(z)                 # ~ N(0, C)
    y = jnp.swapaxes(y, 1, 0)
    x = memory["mean"] + memory["sigma"] * y      # ~ N(m, σ^2 C)
    return x

def tell_cma_strategy(x, fitness, params, memory):
    """ Update the surrogate ES model. """
    # Update/increase the generation counter
    memory["generation"] = memory["generation"] + 1
    # Sort new results, extract parents, store best performer
    concat_p_f = jnp.hstack([jnp.expand_dims(fitness, 1), x])
    sorted_solutions = concat_p_f[concat_p_f[:, 0].argsort()]
    # Update mean, isotropic/anisotropic paths, covariance, stepsize
    mean, y_k, y_w = update_mean(sorted_solutions, params, memory)
    memory["mean"] = mean
    p_sigma, C_2, C, B, D = update_p_sigma(y_w, params, memory)
    memory["p_sigma"], memory["C"], memory["B"], memory["D"] = p_sigma, C, B, D
    p_c, norm_p_sigma, h_sigma = update_p_c(y_w, params, memory)
    memory["p_c"] = p_c
    C = update_covariance(y_k, h_sigma, C_2, params, memory)
    memory["C"] = C
    sigma = update_sigma(norm_p_sigma, params, memory)
    memory["sigma"] = sigma
    return memory

# JIT-compiled version for tell interface
tell = jit(tell_cma_strategy)

def update_mean(sorted_solutions, params, memory):
    """ Update mean of strategy. """
    x_k = sorted_solutions[:, 1:]       # ~ N(m, σ^2 C)
    y_k_temp = (x_k - memory["mean"])   # ~ N(0, σ^2 C)
    y_w_temp = jnp.sum(y_k_temp.T * params["weights_truncated"], axis=1)
    mean = memory["mean"] + params["c_m"] * y_w_temp
    # Comple z-scoring for later updates
    y_k = y_k_temp/ memory["sigma"]
    y_w = y_w_temp/ memory["sigma"]
    return mean, y_k, y_w

def update_p_sigma(y_w, params, memory):
    """ Update evolution path for covariance matrix. """
    C, B, D = eigen_decomposition(memory["C"], memory["B"], memory["D"])
    C_2 = B.dot(jnp.diag(1 / D)).dot(B.T)  # C^(-1/2) = B D^(-1) B^T
    p_sigma_new = (1 - params["c_sigma"]) * memory["p_sigma"] + jnp.sqrt(
        (1 - (1 - params["c_sigma"])**2) *
        params["mu_eff"]) * C_2.dot(y_w)
    _B, _D = None, None
    return p_sigma_new, C_2, C, _B, _D

def update_p_c(y_w, params, memory):
    """ Update evolution path for sigma/stepsize. """
    norm_p_sigma = jnp.linalg.norm(memory["p_sigma"])
    h_sigma_cond_left = norm_p_sigma / jnp.sqrt(
        1 - (1 - params["c_sigma"]) ** (2 * (memory["generation"] + 1)))
    h_sigma_cond_right = (1.4 + 2 / (memory["mean"].shape[0] + 1)) * params["chi_d"]
    h_sigma = 1.0 * (h_sigma_cond_left < h_sigma_cond_right)
    p_c = (1 - params["c_c"]) * memory["p_c"] + h_sigma * jnp.sqrt((1 -
          (1 - params["c_c"])**2) * params["mu_eff"]) * y_w
    return p_c, norm_p_sigma, h_sigma

def update_covariance(y_k, h_sigma, C_2, params, memory):
    """ Update cov. matrix estimator using rank 1 + μ updates. """
    w_io = params["weights"] * jnp.where(params["weights"] >= 0, 1,
                                        memory["mean"].shape[0]/
            (jnp.linalg.norm(C_2.dot(y_k.T), axis=0) ** 2 + 1e-20))
    delta_h_sigma = (1 - h_sigma) * params["c_c"] * (2 - params["c_c"])
    rank_one = jnp.outer(memory["p_c"], memory["p_c"])
    rank_mu = jnp.sum(
        jnp.array([w * jnp.outer(y, y) for w, y in zip(w_io, y_k)]), axis=0)
    C = ((1 + params["c_1"] * delta_h_sigma - params["c_1"]
          - params["c_mu"] * jnp.sum(params["weights"])) * memory["C"]
         + params["c_1"] * rank_one + params["c_mu"] * rank_mu)
    return C

def update_sigma(norm_p_sigma, params, memory):
    """ Update stepsize sigma. """
    sigma = (memory["sigma"] * jnp.exp((params["c_sigma"] / params["d_sigma"])
                                      * (norm_p_sigma / params["chi_d"] - 1)))
    return sigma

def run_cma_es(rng, fitness_fct, num_generations, num_params, sigma_init,
               pop_size, elite_size, print_every_gen, top_k = 2):
    """ Run CMA-ES Pipeline for a number of generations. """
    mean_init = jnp.zeros(num_params)
    params, memory = init_cma_es(mean_init, sigma_init, pop_size, elite_size)
    evo_logger = init_logger(top_k, num_params)

    for generation in range(num_generations):
        rng, rng_input = jax.random.split(rng)
        x, memory = ask(rng_input, params, memory)
        value = fitness_fct(x)
        memory = tell(x, value, params, memory)
        evo_logger = update_logger(evo_logger, x, value, memory, top_k)
        if (generation + 1) % print_every_gen == 0:
            print("# Gen: {} | Fitness: {:.2f} | Params: {}".format(generation+1,
                                                      evo_logger["top_values"][0],
                                                      evo_logger["top_params"][0]))
    return evo_logger


if __name__ == '__main__':
    # Run the JAX CMA-ES on 3 2-d toy problems
    rng = jax.random.PRNGKey(0)
    print(10*"=" + " Start 6 Hump Camel Funct. " + 10*"=")
    camel_log = run_cma_es(rng, batch_hump_camel, 50, 2, 1, 4, 2, 10)
    print(10*"=" + " Start Himmelblau Function " + 10*"=")
    himmel_log = run_cma_es(rng, batch_himmelblau, 50, 2, 1, 4, 2, 10)
    print(10*"=" + " Start Rosenbrock Function " + 10*"=")
    rosen_log = run_cma_es(rng, batch_rosenbrock, 50, 2, 1, 4, 2, 10)
