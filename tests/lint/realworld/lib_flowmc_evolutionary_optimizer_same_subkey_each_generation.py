# source: https://github.com/kazewong/flowMC/blob/716d9ef31f658a98dfc27652b914c9f2d79edf49/src/flowMC/utils/EvolutionaryOptimizer.py
#   (EvolutionaryOptimizer before commit 3ca18de, "small bug fix in keys for stepping
#   optimizer", which rebinds `subkey` instead of `key` from optimize_step's result)
# observed on jax 0.10.2 CPU: both loops of optimize pass the same `subkey` to
#   optimize_step in every generation (the returned key is bound to `key`, never used),
#   so optimize_step splits the same key and strategy.ask gets the same key each time:
#   every generation samples its population from the same noise. Changed:
#   `from evosax import CMA_ES` (evosax is not installed here) is replaced by a stand-in
#   CMA_ES: default_params with replace, initialize, ask (a population around the mean
#   drawn with the key; it records the key) and tell (moves the mean to the best
#   member). Added: the __main__ block.
# gap: other
import dataclasses

import jax
import jax.numpy as jnp
import tqdm


@dataclasses.dataclass(frozen=True)
class _Params:  # stand-in for evosax's CMA_ES params
    sigma: float = 0.1
    clip_min: float = -jnp.inf
    clip_max: float = jnp.inf

    def replace(self, **kw):
        return dataclasses.replace(self, **kw)


@dataclasses.dataclass(frozen=True)
class _State:  # stand-in for evosax's CMA_ES state
    mean: jnp.ndarray
    best_member: jnp.ndarray
    best_fitness: float


class CMA_ES:  # stand-in for evosax.CMA_ES
    def __init__(self, num_dims, popsize, elite_ratio):
        self.num_dims, self.popsize = num_dims, popsize
        self.default_params = _Params()
        self.ask_keys = []

    def initialize(self, key, params):
        mean = jax.random.uniform(key, (self.num_dims,))
        return _State(mean, mean, jnp.inf)

    def ask(self, key, state, params):
        self.ask_keys.append(key)
        z = jax.random.normal(key, (self.popsize, self.num_dims))
        x = jnp.clip(state.mean + params.sigma * z, params.clip_min, params.clip_max)
        return x, state

    def tell(self, x, fitness, state, params):
        i = jnp.argmin(fitness)
        best = jnp.where(fitness[i] < state.best_fitness, x[i], state.best_member)
        return _State(x[i], best, jnp.minimum(fitness[i], state.best_fitness))


class EvolutionaryOptimizer:

    """
    A wrapper class for the evosax package.
    Note that we do not aim to solve any generic optimization problem,
    especially in a high dimension space.


    Parameters
    ----------
    ndims : int
        The dimension of the parameter space.
    popsize : int
        The population size of the evolutionary algorithm.
    verbose : bool
        Whether to print the progress bar.

    Attributes
    ----------
    strategy : evosax.CMA_ES
        The evolutionary strategy.
    es_params : evosax.CMA_ESParams
        The parameters of the evolutionary strategy.
    verbose : bool
        Whether to print the progress bar.

    Methods
    -------
    optimize(objective, bound, n_loops = 100, seed = 9527)
        Optimize the objective function.
    get_result()
        Get the best member and the best fitness.
    """

    def __init__(self, ndims, popsize=100, verbose=False):
        self.strategy = CMA_ES(num_dims=ndims, popsize=popsize, elite_ratio=0.5)
        self.es_params = self.strategy.default_params.replace(clip_min=0, clip_max=1)
        self.verbose = verbose
        self.history = []
        self.state = None

    def optimize(self, objective, bound, n_loops = 100, seed = 9527, keep_history_step = 0):
        """
        Optimize the objective function.

        Parameters
        ----------
        objective : Callable
            The objective function, which should be implemented in JAX.
        bound : (2, ndims) ndarray
            The bound of the parameter space.
        n_loops : int
            The number of iterations.
        seed : int
            The random seed.

        Returns
        -------
        None
        """
        rng = jax.random.PRNGKey(seed)
        key, subkey = jax.random.split(rng)
        progress_bar = tqdm.tqdm(range(n_loops), "Generation: ") if self.verbose else range(n_loops)
        self.bound = bound
        self.state = self.strategy.initialize(key, self.es_params)
        if keep_history_step > 0:
            self.history = []
            for i in progress_bar:
                key, self.state, theta = self.optimize_step(subkey, self.state, objective, bound)  # expect: JIT502
                if i%keep_history_step == 0: self.history.append(theta)
                if self.verbose: progress_bar.set_description(f"Generation: {i}, Fitness: {self.state.best_fitness:.4f}")
            self.history = jnp.array(self.history)
        else:
            for i in progress_bar:
                key, self.state, _ = self.optimize_step(subkey, self.state, objective, bound)  # expect: JIT502
                if self.verbose: progress_bar.set_description(f"Generation: {i}, Fitness: {self.state.best_fitness:.4f}")

    def optimize_step(self, key: jax.random.PRNGKey, state, objective: callable, bound):
        key, subkey = jax.random.split(key)
        x, state = self.strategy.ask(subkey, state, self.es_params)
        theta = x * (bound[:, 1] - bound[:, 0]) + bound[:, 0]
        fitness = objective(theta)
        state = self.strategy.tell(x, fitness.astype(jnp.float32), state, self.es_params)
        return key, state, theta

    def get_result(self):
        """
        Get the best member and the best fitness.

        Returns
        -------
        best_member : (ndims,) ndarray
            The best member.
        best_fitness : float
            The best fitness.
        """

        best_member = self.state.best_member* (self.bound[:, 1] - self.bound[:, 0]) + self.bound[:, 0]
        best_fitness = self.state.best_fitness
        return best_member, best_fitness

if __name__ == "__main__":
    def objective(theta):
        return jnp.sum((theta - 0.3) ** 2, axis=-1)

    bound = jnp.array([[0.0, 1.0], [0.0, 1.0]])
    opt = EvolutionaryOptimizer(2, popsize=8)
    opt.optimize(objective, bound, n_loops=5, keep_history_step=1)
    opt_b = EvolutionaryOptimizer(2, popsize=8)
    opt_b.optimize(objective, bound, n_loops=5)
    # observed: line 127 and line 133 hand one subkey to optimize_step in every generation:
    # strategy.ask receives the same key five times in each loop
    for o in (opt, opt_b):
        keys = jnp.stack(o.strategy.ask_keys)
        assert keys.shape[0] == 5
        assert bool(jnp.all(keys == keys[0]))
