# source: https://github.com/pyro-ppl/numpyro/issues/1977
#   (the reporter's NumPyro model wrapping a JAX agent-based epidemic simulation for MCMC)
# observed on jax 0.10.2 CPU: the model hands the simulation a fresh `jax.random.PRNGKey(0)`
#   on every evaluation, so every evaluation of the (traced, jitted) model runs the ABM with
#   the same randomness: under two different numpyro seeds, with the parameters held fixed,
#   the simulated infection counts I_t are identical, while the simulation itself does vary
#   with its key. The maintainer's answer is to draw the key with numpyro.prng_key().
#   Changed: `abm(key=jax.random.PRNGKey(0),grid_size, ...)` (a keyword argument before
#   positional ones, a SyntaxError) is written with the key passed positionally.
#   Added: imports, a small stand-in `abm` (the reporter did not post it; same signature and
#   a 3-tuple result ending in the infected counts), the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro import handlers


def abm(key, grid_size, num_steps, p_infect, initial_infected):
    # stand-in for the reporter's agent-based model: infection spreads on a grid
    key, init_key = jax.random.split(key)
    infected = jax.random.uniform(init_key, (grid_size, grid_size)) < initial_infected

    def step(infected, step_key):
        neighbours = (jnp.roll(infected, 1, 0).astype(jnp.int32) + jnp.roll(infected, -1, 0)
                      + jnp.roll(infected, 1, 1) + jnp.roll(infected, -1, 1))
        p = 1.0 - (1.0 - p_infect) ** neighbours
        infected = infected | (jax.random.uniform(step_key, infected.shape) < p)
        return infected, infected.sum().astype(jnp.float32)

    infected, I_t = jax.lax.scan(step, infected, jax.random.split(key, num_steps))
    return infected, None, I_t


# Numpyro model for inference
def numpyro_abm(grid_size, num_steps, data=None):

    p_infect = numpyro.sample("p_infect", dist.Beta(2, 5))
    initial_infected = numpyro.sample("initial_infected", dist.Beta(1, 10))
    _, _, I_t = abm(jax.random.PRNGKey(0), grid_size, num_steps, p_infect, initial_infected)  # expect: JIT502

    if data is not None:
        numpyro.sample("obs", dist.Normal(I_t, 5.0), obs=data)


if __name__ == "__main__":
    grid_size, num_steps = 10, 6
    data = jnp.zeros(num_steps)

    @jax.jit
    def simulated_counts(rng_key):
        # one evaluation of the model as an MCMC step sees it: seeded, parameters given
        with handlers.seed(rng_seed=rng_key):
            with handlers.condition(data={"p_infect": 0.3, "initial_infected": 0.1}):
                tr = handlers.trace(numpyro_abm).get_trace(grid_size, num_steps, data=data)
        return tr["obs"]["fn"].loc

    first = simulated_counts(jax.random.PRNGKey(1))
    second = simulated_counts(jax.random.PRNGKey(2))
    # observed: line 41 gives the simulation the same key on every evaluation: two seeds,
    #   identical simulated counts, although the simulation varies with its key
    assert jnp.array_equal(first, second)
    _, _, other = abm(jax.random.PRNGKey(3), grid_size, num_steps, 0.3, 0.1)
    assert not jnp.array_equal(first, other)
    print("I_t under seed 1:", first)
    print("I_t under seed 2:", second)
