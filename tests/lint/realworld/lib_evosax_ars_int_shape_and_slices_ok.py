# source: https://github.com/RobertTLange/evosax/blob/0895352a1692f10dea8c77253c779e1bba932081/evosax/strategies/ars.py
#   (Augmented_RS after 0895352 "Fix elite size indexing"; Strategy from evosax/strategy.py
#   and SGD_Optimizer from evosax/utils/optimizer.py at the same commit. Added: GradientOptimizer
#   reduced to its "sgd" entry (ARS's default), jax.Array for chex.Array / chex.PRNGKey, and the
#   __main__ block, which runs ask and tell)
# observed on jax 0.10.2 CPU: int(self.popsize / 2) is a Python int computed from the static
#   self, so ask's sample shape and tell's slice bounds are concrete and both jitted methods
#   run.
# gap: omnistaging
import jax
import jax.numpy as jnp
from functools import partial


Array = jax.Array
PRNGKey = jax.Array


class SGD_Optimizer(object):
    def __init__(self, num_dims: int):
        self.opt_name = "sgd"
        self.num_dims = num_dims

    @property
    def default_params(self) -> dict:
        """Return default SGD+Momentum parameters."""
        return {
            "lrate_init": 0.01,
            "lrate_decay": 0.999,
            "lrate_limit": 0.001,
            "momentum": 0.9,
        }

    def initialize(self, params):
        """Initialize the momentum trace of the optimizer."""
        return {"m": jnp.zeros(self.num_dims), "lrate": params["lrate_init"]}

    def step(self, grads, state, params):
        """Perform a simple SGD + Momentum step."""
        state["m"] = grads + params["momentum"] * state["m"]
        state["mean"] -= state["lrate"] * state["m"]
        return state

    def update(self, state, params):
        """Exponentially the learning rate if desired."""
        state["lrate"] *= params["lrate_decay"]
        state["lrate"] = jnp.maximum(state["lrate"], params["lrate_limit"])
        return state


GradientOptimizer = {"sgd": SGD_Optimizer}


class Strategy(object):
    def __init__(self, num_dims: int, popsize: int):
        """Base Abstract Class for an Evolutionary Strategy."""
        self.num_dims = num_dims
        self.popsize = popsize

    @property
    def default_params(self):
        """Return default parameters of evolutionary strategy."""
        params = self.params_strategy
        # Add shared parameter clipping and archive init params
        params["clip_min"] = -jnp.finfo(jnp.float32).max
        params["clip_max"] = jnp.finfo(jnp.float32).max
        params["init_min"] = -2
        params["init_max"] = 2
        return params

    @partial(jax.jit, static_argnums=(0,))
    def initialize(self, rng: PRNGKey, params: dict) -> dict:
        """`initialize` the evolutionary strategy."""
        # Initialize strategy based on strategy-specific initialize method
        state = self.initialize_strategy(rng, params)

        # Add best performing parameters/fitness tracker/generation counter
        state["best_member"] = jax.random.uniform(  # tolerate: JIT502
            rng,
            (self.num_dims,),
            minval=params["init_min"],
            maxval=params["init_max"],
        )
        # Set best fitness to large value - ES minimizes by default!
        state["best_fitness"] = jnp.finfo(jnp.float32).max
        state["gen_counter"] = 0
        return state

    @partial(jax.jit, static_argnums=(0,))
    def ask(self, rng: PRNGKey, state: dict, params: dict) -> (Array, dict):
        """`ask` for new parameter candidates to evaluate next."""
        # Generate proposal based on strategy-specific ask method
        x, state = self.ask_strategy(rng, state, params)
        x_clipped = jnp.clip(
            jnp.squeeze(x), params["clip_min"], params["clip_max"]
        )
        return x_clipped, state

    @partial(jax.jit, static_argnums=(0,))
    def tell(self, x: Array, fitness: Array, state: dict, params: dict) -> dict:
        """`tell` performance data for strategy state update."""
        # Update the search state based on strategy-specific update
        state = self.tell_strategy(x, fitness, state, params)

        # Update the generation counter
        state["gen_counter"] += 1

        # Check if there is a new best member
        best_in_gen = jnp.argmin(fitness)
        best_in_gen_fitness, best_in_gen_member = (
            fitness[best_in_gen],
            x[best_in_gen],
        )
        replace_best = best_in_gen_fitness < state["best_fitness"]
        state["best_fitness"] = jax.lax.select(
            replace_best, best_in_gen_fitness, state["best_fitness"]
        )
        state["best_member"] = jax.lax.select(
            replace_best, best_in_gen_member, state["best_member"]
        )
        return state


class Augmented_RS(Strategy):
    def __init__(
        self,
        num_dims: int,
        popsize: int,
        elite_ratio: float = 0.1,
        opt_name: str = "sgd",
    ):
        super().__init__(num_dims, popsize)
        assert not self.popsize & 1, "Population size must be even"
        # ARS performs antithetic sampling & allows you to select
        # "b" elite perturbation directions for the update
        self.elite_ratio = elite_ratio
        self.elite_popsize = int(self.popsize / 2 * self.elite_ratio)
        assert opt_name in ["sgd", "adam", "rmsprop", "clipup"]
        self.optimizer = GradientOptimizer[opt_name](self.num_dims)

    @property
    def params_strategy(self):
        """Return default parameters of evolutionary strategy."""
        es_params = {
            "sigma_init": 0.1,
            "sigma_decay": 0.999,
            "sigma_limit": 0.01,
        }
        params = {**es_params, **self.optimizer.default_params}
        return params

    def initialize_strategy(self, rng, params):
        """`initialize` the evolutionary strategy."""
        initialization = jax.random.uniform(
            rng,
            (self.num_dims,),
            minval=params["init_min"],
            maxval=params["init_max"],
        )
        es_state = {
            "mean": initialization,
            "sigma": params["sigma_init"],
        }
        state = {**es_state, **self.optimizer.initialize(params)}
        return state

    def ask_strategy(self, rng, state, params):
        """`ask` for new parameter candidates to evaluate next."""
        # Antithetic sampling of noise
        z_plus = jax.random.normal(
            rng,
            (int(self.popsize / 2), self.num_dims),
        )
        z = jnp.concatenate([z_plus, -1.0 * z_plus])
        x = state["mean"] + state["sigma"] * z
        return x, state

    def tell_strategy(self, x, fitness, state, params):
        """`tell` performance data for strategy state update."""
        # Reconstruct noise from last mean/std estimates
        noise = (x - state["mean"]) / state["sigma"]
        noise_1 = noise[: int(self.popsize / 2)]
        fit_1 = fitness[: int(self.popsize / 2)]
        fit_2 = fitness[int(self.popsize / 2) :]
        elite_idx = jnp.minimum(fit_1, fit_2).argsort()[: self.elite_popsize]

        fitness_elite = jnp.concatenate([fit_1[elite_idx], fit_2[elite_idx]])
        # Add small constant to ensure non-zero division stability
        sigma_fitness = jnp.std(fitness_elite) + 1e-08
        fit_diff = fit_1[elite_idx] - fit_2[elite_idx]
        fit_diff_noise = jnp.dot(noise_1[elite_idx].T, fit_diff)

        theta_grad = 1.0 / (self.elite_popsize * sigma_fitness) * fit_diff_noise
        # print(jnp.linalg.norm(theta_grad), sigma_fitness)
        # Grad update using optimizer instance - decay lrate if desired
        state = self.optimizer.step(theta_grad, state, params)
        state = self.optimizer.update(state, params)
        # Update lrate and standard deviation based on min and decay
        state["sigma"] *= params["sigma_decay"]
        state["sigma"] = jnp.maximum(state["sigma"], params["sigma_limit"])
        return state


if __name__ == "__main__":
    rng = jax.random.PRNGKey(0)
    strategy = Augmented_RS(num_dims=3, popsize=20)
    es_params = strategy.default_params
    state = strategy.initialize(rng, es_params)
    for _ in range(3):
        rng, rng_ask = jax.random.split(rng)  # tolerate: JIT502
        x, state = strategy.ask(rng_ask, state, es_params)
        fitness = jnp.sum(x ** 2, axis=1)
        state = strategy.tell(x, fitness, state, es_params)
    assert x.shape == (20, 3)
    assert int(state["gen_counter"]) == 3
