# source: https://github.com/RobertTLange/evosax/blob/8e9ca4bd9483ec86eadf3d4f26f22c36d20cf3fa/evosax/strategies/gaussian.py
#   (the call is the first cell of notebooks/optimisation_gaussian.ipynb at the same commit;
#   fixed in a869dda, "Fix jit unhashable dict problem", which took the dict out of the
#   static arguments)
# observed on jax 0.10.2 CPU: `ask(rng_input, memory, params)` raises ValueError:
#   Non-hashable static arguments are not supported: `params`, a dict, is static argument 2.
#   Kept: init_strategy, ask_gaussian_strategy and the jitted `ask` as in the file; the
#   notebook's cell is in __main__ (its `tell` call and the rest of the module are left out).
# gap: static-hashability
import jax
import jax.numpy as jnp
from jax import jit


def init_strategy(mean_init, sigma, population_size, mu):
    ''' Initialize evolutionary strategy & learning rates. '''
    weights = jnp.zeros(population_size) + 1/mu
    params = {"pop_size": population_size,
              "mu": mu,
              "weights": weights,
              "c_m": 0.5,
              "c_sigma": 0.1,
              "tol_fun": 1e-12,
              "min_generations": 10}
    memory = {"sigma": sigma,
              "mean": mean_init,
              "generation": 0}
    return params, memory


def ask_gaussian_strategy(rng, memory, params):
    """ Propose params to evaluate next. Sample from isotropic Gaussian. """
    z = jax.random.normal(rng, (int(params["pop_size"]),
                                memory["mean"].shape[0])) # ~ N(0, I)
    x = memory["mean"] + memory["sigma"] * z    # ~ N(m, σ^2 I)
    return x, memory


# Jitted version of CMA-ES ask and tell interface
ask = jit(ask_gaussian_strategy, static_argnums=(2))


if __name__ == "__main__":
    rng = jax.random.PRNGKey(0)
    mean_init, sigma_init = jnp.zeros(2), 1.0
    pop_size, elite_size = 6, 3
    params, memory = init_strategy(mean_init, sigma_init,
                                   pop_size, elite_size)

    # Fix population size, fix elite size
    rng, rng_input = jax.random.split(rng)
    x, memory = ask(rng_input, memory, params)  # expect: JIT302
