# source: https://github.com/bdatko/numpyro_play/blob/66916c65a6775e93ab6aaa98bc51ff4039bb3aa8/notebooks/pyro_importance_sampling.py
# observed on jax 0.10.2 CPU: runs clean; analytic_T now uses jnp.sqrt, jax_simulate is jitted once, the model's while_loop sits under lax.cond
# gap: other
# (the user's fix of the previous commit; notebook-only lines (%magics, plots, arviz, render_model) left out;
#  the old five-argument lax.cond(pred, true_operand, true_fun, false_operand, false_fun) rewritten as
#  lax.cond(pred, true_fun, false_fun, operand) with the same branches; MCMC sizes cut from
#  500/1000 to 20/20 so the file runs in seconds; calls moved into the __main__ block)
import numpy as np
import jax
from jax import jit, lax
import jax.numpy as jnp

import numpyro
from numpyro.distributions import Normal, Uniform
from numpyro.infer import MCMC, NUTS

key = jax.random.PRNGKey(2)

little_g = 9.8  # m/s/s
mu0 = 0.12  # actual coefficient of friction in the experiment
time_measurement_sigma = 0.02  # observation noise in seconds (known quantity)


def _body(info):
    displacement, length, velocity, dt, acceleration, T = info
    displacement += velocity * dt
    velocity += acceleration * dt
    T += dt

    return displacement, length, velocity, dt, acceleration, T

def _conf(info):
    displacement, length, _, _, _, _ = info
    return displacement < length

def slide(displacement, length, velocity, dt, acceleration, T):
    info = (displacement, length, velocity, dt, acceleration, T)
    res = lax.while_loop(_conf, _body, info)
    return res[-1]

# length=2.0, phi=jnp.pi / 6.0, dt=0.005
@jit
def jax_simulate(mu, key, noise_sigma, length, phi, dt):
    T = jnp.zeros(())
    velocity = jnp.zeros(())
    displacement = jnp.zeros(())
    acceleration = (little_g * jnp.sin(phi)) - (little_g * jnp.cos(phi)) * mu

    T = slide(displacement, length, velocity, dt, acceleration, T)

    return T + noise_sigma * jax.random.normal(key, ())


# analytic formula that the simulator above is computing via
# numerical integration (no measurement noise)
@jax.jit
def analytic_T(mu, length=2.0, phi=jnp.pi / 6.0):
    numerator = 2.0 * length
    denominator = little_g * (jnp.sin(phi) - mu * jnp.cos(phi))
    return jnp.sqrt(numerator / denominator)


w = lambda info: jax.lax.while_loop(_conf, _body, info)


def numpyro_model(observed_data, measurment_sigma):
    length = 2.0
    phi = jnp.pi / 6.0
    dt = 0.005
    mu = numpyro.sample("mu", Uniform(0.0, 1.0))

    with numpyro.plate("data_loop", len(observed_data)):
        T = jnp.zeros(())
        velocity = jnp.zeros(())
        displacement = jnp.zeros(())
        acceleration = (little_g * jnp.sin(phi)) - (little_g * jnp.cos(phi)) * mu
        info = (displacement, length, velocity, dt, acceleration, T)
        res = jax.lax.cond(acceleration <= 0, lambda _: (0.,0.,0.,0.,0.,1.0e5), w, info)
        T_simulated = res[-1]
        numpyro.sample("obs", Normal(T_simulated, measurment_sigma), obs=observed_data)

    return mu


if __name__ == "__main__":
    print("First call: ", jax_simulate(mu0, key, time_measurement_sigma, 2.0, jnp.pi / 6.0, 0.005))
    print ("Second call: ", jax_simulate(0.14, key, time_measurement_sigma, 2.0, jnp.pi / 6.0, 0.005))  # tolerate: JIT502
    print ("Third call, different type: ", jax_simulate(0, key, time_measurement_sigma, 2.0, jnp.pi / 6.0, 0.005))  # tolerate: JIT502

    # generate N_obs observations using simulator and the true coefficient of friction mu0
    print("generating simulated data using the true coefficient of friction %.3f" % mu0)
    N_obs = 20

    keys = jax.random.split(key, N_obs)  # tolerate: JIT502

    observed_data = jnp.array([jax_simulate(mu0, key, time_measurement_sigma, 2.0, jnp.pi / 6.0, 0.005) for key in keys])
    observed_mean = jnp.mean(observed_data)

    nuts_kernel = NUTS(numpyro_model,forward_mode_differentiation=True)

    mcmc = MCMC(nuts_kernel, num_warmup=20, num_samples=20, num_chains=1, chain_method='parallel', progress_bar=False)

    mcmc.run(key, observed_data, time_measurement_sigma, extra_fields=('potential_energy',))  # tolerate: JIT502

    inferred_mu = mcmc.get_samples()["mu"].mean().item()
    print("the coefficient of friction inferred is %.3f" % inferred_mu)
    print("the mean observed descent time in the dataset is: %.4f seconds" % observed_mean)
    print("the (forward) simulated descent time for the inferred (mean) mu is: %.4f seconds" %
          jax.jit(jax_simulate)(inferred_mu, key, 0., 2.0, jnp.pi / 6.0, 0.005))  # tolerate: JIT502
    print(("disregarding measurement noise, elementary calculus gives the descent time\n" +
           "for the inferred (mean) mu as: %.4f seconds") % analytic_T(inferred_mu))
