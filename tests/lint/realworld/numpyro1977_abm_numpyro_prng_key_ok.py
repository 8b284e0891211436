# source: https://github.com/pyro-ppl/numpyro/issues/1977
#   (the reporter's NumPyro model of an agent-based epidemic simulation, with the fix the
#   maintainer gives in the thread: the simulation's key drawn by numpyro.prng_key())
# observed on jax 0.10.2 CPU: runs clean; each evaluation of the model under a new numpyro
#   seed draws a new key for the simulation (different counts for two seeds), and a short
#   NUTS run over the model compiles and samples.
#   Changed: `abm(key=jax.random.PRNGKey(0),grid_size, ...)` becomes
#   `abm(numpyro.prng_key(), grid_size, ...)`, the maintainer's answer, the key passed
#   positionally. Added: imports, a small stand-in `abm` (the reporter did not post it),
#   the __main__ block.
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
    _, _, I_t = abm(numpyro.prng_key(), grid_size, num_steps, p_infect, initial_infected)

    if data is not None:
        numpyro.sample("obs", dist.Normal(I_t, 5.0), obs=data)


if __name__ == "__main__":
    from numpyro.infer import MCMC, NUTS

    grid_size, num_steps = 10, 6
    data = jnp.array([12.0, 20.0, 30.0, 40.0, 50.0, 58.0])

    @jax.jit
    def simulated_counts(rng_key):
        with handlers.seed(rng_seed=rng_key):
            with handlers.condition(data={"p_infect": 0.3, "initial_infected": 0.1}):
                tr = handlers.trace(numpyro_abm).get_trace(grid_size, num_steps, data=data)
        return tr["obs"]["fn"].loc

    first = simulated_counts(jax.random.PRNGKey(1))
    second = simulated_counts(jax.random.PRNGKey(2))
    assert not jnp.array_equal(first, second)

    mcmc = MCMC(NUTS(numpyro_abm), num_warmup=30, num_samples=30, progress_bar=False)
    mcmc.run(jax.random.PRNGKey(0), grid_size, num_steps, data=data)
    samples = mcmc.get_samples()
    assert samples["p_infect"].shape == (30,)
    print("counts under two seeds:", first, second)
    print("posterior mean p_infect:", samples["p_infect"].mean())
