# source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/schelling_jax.md
#   (QuantEcon's "Schelling segregation model in JAX" lecture)
# observed on jax 0.10.2 CPU: is_happy and move_agent are jitted with `params` (a NamedTuple of
#   ints) static, so `params.num_neighbors` is a Python int for lax.top_k; the agent index `i`
#   is traced (a weak int32, one compilation for all agents); move_agent's `max_attempts` is
#   left at its default, so it is a Python constant in the while_loop test; the key is split
#   in the loop body and returned. The driver loop runs outside jit and tests concrete
#   results with `if not`. One compilation per function serves the whole simulation, which
#   converges.
# gap: static-hashability
# added: the __main__ block, which runs the lecture's warm-up cell and then run_simulation
#   with 200 agents of each type instead of 1000 (to keep the run short) and checks the
#   result. Left out: matplotlib (plot_distribution is replaced by a stand-in that does
#   nothing).
import numpy as np
import jax
import jax.numpy as jnp
from jax import random, jit
from functools import partial
from typing import NamedTuple
import time


class Params(NamedTuple):
    num_of_type_0: int = 1000    # number of agents of type 0 (orange)
    num_of_type_1: int = 1000    # number of agents of type 1 (green)
    num_neighbors: int = 10      # number of agents regarded as neighbors
    max_other_type: int = 6     # max number of different-type neighbors tolerated


params = Params()


def initialize_state(key, params):
    """
    Initialize agent locations and types.

    """
    num_of_type_0, num_of_type_1 = params.num_of_type_0, params.num_of_type_1
    n = num_of_type_0 + num_of_type_1
    locations = random.uniform(key, (n, 2))
    types = jnp.concatenate([jnp.zeros(num_of_type_0, dtype=int),
                              jnp.ones(num_of_type_1, dtype=int)])
    return locations, types


@partial(jit, static_argnames=('params',))
def is_happy(loc, agent_idx, locations, types, params):
    " True if an agent at loc has at most max_other_type different-type neighbors. "
    # Squared distances from loc to every agent
    distances = jnp.sum((loc - locations)**2, axis=1)
    distances = distances.at[agent_idx].set(jnp.inf)  # exclude self
    # top_k finds the k smallest distances in O(n) (we negate to use top_k)
    _, neighbors = jax.lax.top_k(-distances, params.num_neighbors)
    num_other = jnp.sum(types[neighbors] != types[agent_idx])
    return num_other <= params.max_other_type


@partial(jit, static_argnames=('params',))
def move_agent(i, locations, types, key, params, max_attempts=10_000):
    """
    Find a location where agent i is happy.

    Returns the new location and updated random key. The calling code
    is responsible for updating the locations array if the agent moved.
    """
    loc = locations[i, :]

    # Continue while under max_attempts and not yet happy
    def while_test(state):
        loc, key, attempts = state
        return (attempts < max_attempts) & ~is_happy(loc, i, locations, types, params)

    # Draw a new random location
    def update(state):
        _, key, attempts = state
        key, subkey = random.split(key)
        new_loc = random.uniform(subkey, 2)
        return new_loc, key, attempts + 1

    final_loc, key, _ = jax.lax.while_loop(while_test, update, (loc, key, 0))
    return final_loc, key


def plot_distribution(locations, types, title):
    """
    Stand-in for the lecture's matplotlib plot.
    """
    np.asarray(locations), np.asarray(types)


def simulation_loop(locations, types, key, params, max_iter):
    """
    Run the simulation loop until convergence or max iterations.
    """
    n = params.num_of_type_0 + params.num_of_type_1
    converged = False
    for iteration in range(1, max_iter + 1):
        print(f'Entering iteration {iteration}')
        someone_moved = False
        for i in range(n):
            if not is_happy(locations[i], i, locations, types, params):
                new_loc, key = move_agent(i, locations, types, key, params)
                locations = locations.at[i, :].set(new_loc)
                someone_moved = True
        if not someone_moved:
            converged = True
            break

    return locations, iteration, converged, key


def run_simulation(params, max_iter=100_000, seed=1234):
    """
    Run the Schelling simulation using JAX.
    """
    key = random.key(seed)
    key, init_key = random.split(key)
    locations, types = initialize_state(init_key, params)

    plot_distribution(locations, types, 'Initial distribution')

    start_time = time.time()
    locations, iteration, converged, key = simulation_loop(locations, types, key, params, max_iter)
    elapsed = time.time() - start_time

    plot_distribution(locations, types, f'Iteration {iteration}')

    if converged:
        print(f'Converged in {elapsed:.2f} seconds after {iteration} iterations.')
    else:
        print('Hit iteration bound and terminated.')

    return locations, types


if __name__ == "__main__":
    key = random.key(42)
    key, init_key = random.split(key)
    test_locations, test_types = initialize_state(init_key, params)

    _ = is_happy(test_locations[0], 0, test_locations, test_types, params)
    key, subkey = random.split(key)
    _, _ = move_agent(0, test_locations, test_types, subkey, params)

    print("JAX functions compiled and ready!")

    small = Params(num_of_type_0=200, num_of_type_1=200)
    locations, types = run_simulation(small)
    # added checks: every agent ends happy, one compilation per function and Params value
    assert all(bool(is_happy(locations[i], i, locations, types, small)) for i in range(400))
    assert is_happy._cache_size() == 2 and move_agent._cache_size() <= 2
