# source: https://github.com/bdatko/numpyro_play/blob/a49158567f2d7ffdb74d9106f8853e014798fdbd/notebooks/pyro_importance_sampling.py
# observed on jax 0.10.2 CPU: jax.errors.TracerArrayConversionError at line 52 (np.sqrt on the traced mu inside the jitted analytic_T), raised on its first call
# gap: other
# (the user's port of Pyro's inclined-plane example; notebook-only lines (%magics, plots, the
#  LogNormal prior plot and the NUTS model, whose while_loop never ends for some mu) left out;
#  the notebook's top-level calls moved into the __main__ block, which also calls analytic_T
#  the way the next version of the notebook does: analytic_T(inferred_mu))
import numpy as np
import jax
import jax.numpy as jnp

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
    res = jax.lax.while_loop(_conf, _body, info)
    return res[-1]

def jax_simulate(mu, key, noise_sigma, length=2.0, phi=jnp.pi / 6.0, dt=0.005):
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
    return np.sqrt(numerator / denominator)  # expect: JIT402


if __name__ == "__main__":
    print("First call: ", jax.jit(jax_simulate)(mu0, key, time_measurement_sigma))
    print ("Second call: ", jax.jit(jax_simulate)(0.14, key, time_measurement_sigma))  # tolerate: JIT502

    # generate N_obs observations using simulator and the true coefficient of friction mu0
    print("generating simulated data using the true coefficient of friction %.3f" % mu0)
    N_obs = 20

    keys = jax.random.split(key, N_obs)  # tolerate: JIT502

    observed_data = jnp.array([jax.jit(jax_simulate)(mu0, key, time_measurement_sigma) for key in keys])
    observed_mean = jnp.mean(observed_data)
    print(observed_mean)

    print(("disregarding measurement noise, elementary calculus gives the descent time\n" +
           "for the inferred (mean) mu as: %.4f seconds") % analytic_T(mu0))
