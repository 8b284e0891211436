# source: https://github.com/Sahel13/lfm_for_control/blob/235df0aed3974cc1cf10e9e9e9ba9f1c67a1f6c2/src/stoch_ham/sde.py
#   (with hamiltonian, the default drift/diffusion, generate_measurements and get_dataset from
#   src/stoch_ham/simple_pendulum/data.py at 0f7118a2145e97d2daef4684aa5bc4a80f59f45d, which
#   calls euler_maruyama with the same signature)
# observed on jax 0.10.2 CPU: euler_maruyama_step is jitted once at module level with the drift
#   and diffusion functions static; the Python loop over time steps calls it with the same
#   module-level functions and same-shaped arrays, so it compiles once per dataset (a second
#   dataset reuses the cache), and the keys are split before each use: runs correctly.
# gap: per-call-recompile
# Added: the __main__ block (small t_span, compile count through jax_log_compiles).
import jax
import jax.numpy as jnp
import jax.random as random
from functools import partial


@partial(jax.jit, static_argnums=(0, 1))
def euler_maruyama_step(f, L, params, x, dt, dbeta):
    """
    Single step of the Euler-Maruyama method for stochastic differential equations.
    """
    return x + f(x, params) * dt + L(x, params) * dbeta


def euler_maruyama(key, f, L, params, x0, t_span, dt):
    """
    Euler-Maruyama method for stochastic differential equations.
    """
    time_steps = int((t_span[1] - t_span[0]) / dt)
    q = params['q']
    dbeta = jnp.sqrt(q * dt) * jax.random.normal(key, shape=(time_steps,))
    soln = [x0]
    x = x0
    for i in range(time_steps):
        x = euler_maruyama_step(f, L, params, x, dt, dbeta[i])
        soln.append(x)

    return jnp.vstack(soln)


def hamiltonian(x, params):
    q, p = x
    g = 9.81
    m, l = params['mass'], params['length']
    return p ** 2 / (2 * m * l ** 2) + m * 9.81 * l * (1 - jnp.cos(q))


def _default_drift_fn(x, params):
    q, p = x
    g = 9.81
    m, l = params['mass'], params['length']
    return jnp.array([p / (m * l ** 2), -m * g * l * jnp.sin(q)])


def _default_diffusion_fn(x, params):
    return jnp.array([0., 1.])


def generate_measurements(key, true_traj, meas_error, sampling_rate, dt):
    # Get trajectory values according to the sampling rate.
    step = int(1 / (sampling_rate * dt))
    sub_traj = true_traj[::step]
    # Add noise
    meas_noise = random.normal(key, shape=sub_traj[1:].shape) * meas_error
    meas_sub_traj = sub_traj[1:] + meas_noise
    return sub_traj, meas_sub_traj


def get_dataset(
        key,
        params,
        x0,
        t_span,
        meas_error,
        drift_fn=_default_drift_fn,
        diffusion_fn=_default_diffusion_fn,
        dt: float = 0.001,
        sampling_rate: int = 10):
    # Simulate the system.
    key, subkey = random.split(key)
    soln = euler_maruyama(subkey, drift_fn, diffusion_fn, params, x0, t_span, dt)

    # Sample the trajectory and generate measurements.
    key, subkey = random.split(key)
    true, meas = generate_measurements(subkey, soln, meas_error, sampling_rate, dt)

    return true, meas


if __name__ == "__main__":
    import logging
    compiles = []

    class _Count(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if "euler_maruyama_step" in msg and msg.startswith("Finished XLA compilation"):
                compiles.append(msg)

    jax.config.update("jax_log_compiles", True)
    logging.getLogger("jax").addHandler(_Count())
    logging.getLogger("jax").setLevel(logging.WARNING)

    params = {'mass': 1., 'length': 2., 'q': 0.5}
    x0 = jnp.array([jnp.pi / 2, 0.])
    true, meas = get_dataset(random.PRNGKey(0), params, x0, (0., 0.2), jnp.array([0.1, 0.5]))
    n_first = len(compiles)
    true2, meas2 = get_dataset(random.PRNGKey(1), params, x0, (0., 0.2), jnp.array([0.1, 0.5]))
    assert true.shape[1] == 2 and meas.shape == (true.shape[0] - 1, 2)
    assert bool(jnp.all(jnp.isfinite(true))) and not bool(jnp.allclose(true, true2))
    assert len(compiles) == n_first, (n_first, len(compiles))  # second dataset: no new compilation
    assert n_first == 1, compiles
    print("euler_maruyama_step compiled once over two datasets")
