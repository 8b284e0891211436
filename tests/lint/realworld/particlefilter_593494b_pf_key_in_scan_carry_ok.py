# source: https://github.com/jameswoodfield/Particle_Filter/blob/593494be69dd1d95dce66b204efc8f26969d6f76/filters/filter.py
#   (class ParticleFilter after "supplying key externally to ParticleFilter class", and
#   get_log_weight/v_get_log_weight; the resampler registry and the multinomial and systematic
#   resamplers of filters/resampling.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; the key travels in the lax.scan carry and is split
#   inside the body, so each data-assimilation step adds fresh observation noise, nothing is
#   stored on the filter object, and the filter runs again (eagerly and under jax.jit with
#   n_total static) with the same result for the same key. JAX's key-reuse checker finds no reuse.
# gap: stale-state-attributes
# added: a deterministic stand-in for the repository's SPDE solver (models/ETD_KT_CM_JAX_Vectorised.py,
#   with its own `run(initial_state, n_steps, noise)` returning the final state and the path),
#   the __main__ block (set up as in Example_3_KdV_ensemble.ipynb with small sizes); dropped: the
#   other filter classes of filter.py, the commented-out code and the 'default' branching
#   resampler of resampling.py (the notebook uses "systematic").
import jax
import jax.numpy as jnp

resamplers = {}

def register_resampler(name):
    def register_fn(fn):
        resamplers[name] = fn
        return fn
    return register_fn

@register_resampler('multinomial')
def multinomial_resample(particles, weights, key):
    """
    #https://github.com/rlabbe/Kalman-and-Bayesian-Filters-in-Python/blob/master/12-Particle-Filters.ipynb
    """
    E = len(weights)
    cumulative_sum = jnp.cumsum(weights)
    cumulative_sum = cumulative_sum.at[-1].set(1.)  
    index = jnp.searchsorted(cumulative_sum, jax.random.uniform(key, shape=(E,)))

    return particles[index]

@register_resampler('systematic')
def systematic_resample_2(particles, weights, key):
    """The systematic resampling algorithm"""
    cumulative_sum = jnp.cumsum(weights)
    E = len(weights)
    rand_positions = ( jnp.arange(E) + jax.random.uniform(key, shape=(E,))*jnp.ones(E) ) / E
    indexes = jnp.searchsorted(cumulative_sum, rand_positions, side='left')
    return particles[indexes]


# Just a test of a very basic filter
class ParticleFilter:

    def __init__(self, n_particles, n_steps, n_dim, forward_model, signal_model, sigma, resampling: str = "default", observation_locations=None):
        self.n_particles = n_particles
        self.n_steps = n_steps # no of steps of numerical model in between DA steps
        self.n_dim = n_dim # dimension of the state space (usually no of discretized grid points)
        self.fwd_model = forward_model # forward model for the ensemble
        self.signal_model = signal_model # forward model for the signal
        self.sigma = sigma # observation error standard deviation
        self.resample = resamplers[resampling]
        self.observation_locations = slice(observation_locations) if observation_locations is None else tuple(observation_locations)

    def advance_signal(self, signal_position):
        signal, _ = self.signal_model.run(signal_position, self.n_steps, None)
        return signal

    def predict(self, particles):
        prediction, _ = self.fwd_model.run(particles, self.n_steps, None)
        return prediction

    def observation_from_signal(self, signal, key):
        key, subkey = jax.random.split(key)
        observed = signal + self.sigma * jax.random.normal(subkey, shape=signal.shape)
        # observed = signal + self.sigma * jax.random.normal(key, shape=signal.shape)
        observation = jnp.zeros_like(signal)
        observation = observation.at[..., self.observation_locations].set(observed[..., self.observation_locations])
        return observation

    def update(self, particles, observation, key):
        particles_observed = jnp.zeros_like(particles)
        particles_observed = particles_observed.at[..., self.observation_locations].set(particles[..., self.observation_locations])
        log_weights = v_get_log_weight(particles_observed, observation, self.sigma)
        particles = self.resample(particles, jax.nn.softmax(log_weights), key)
        return particles

    def run_step(self, particles, signal, key):
        key, obs_key, sampling_key = jax.random.split(key, 3)
        signal = self.advance_signal(signal)
        particles = self.predict(particles)
        observation = self.observation_from_signal(signal, obs_key)

        particles = self.update(particles, observation, sampling_key)
        return particles, signal, observation

    def run(self, initial_particles, initial_signal, n_total, key):
        """_summary: Runs the initial particles_

        Args:
            initial_particles (_type_): _description_
            initial_signal (_type_): _description_
            n_total (_type_): _n_total is the number of data assimilation proceedures._
        """
        def scan_fn(val, i):
            particles, signal, key = val
            key, next_key = jax.random.split(key)
            particles, signal, observation = self.run_step(particles, signal, key)
            return (particles, signal, next_key), (particles, signal, observation)
        
        final, all = jax.lax.scan(scan_fn, (initial_particles, initial_signal, key), jnp.arange(n_total))
        return final, all


def get_log_weight(particle, observation, sigma):
    """Returns the likelihood weight of a particle for a given observation.
    # TODO: consider .reshape(-1), as to not create a copy,
    """
    return -0.5*jnp.sum((particle.flatten()-observation.flatten())**2)/sigma**2

v_get_log_weight = jax.jit(jax.vmap(get_log_weight, in_axes=(0, None, None)))


class ShiftModel:  # stand-in for ETD_KT_CM_JAX_Vectorised: periodic advection by one cell per step
    def __init__(self, damping):
        self.damping = damping

    def run(self, initial_state, n_steps, noise):
        def scan_fn(y, i):
            y_next = self.damping * jnp.roll(y, 1, axis=-1)
            return y_next, y_next
        final, path = jax.lax.scan(scan_fn, initial_state, jnp.arange(n_steps))
        return final, path


if __name__ == "__main__":
    import numpy as np

    nx, E = 64, 32
    x = jnp.linspace(0, 2 * jnp.pi, nx, endpoint=False)
    initial_signal = jnp.sin(x)[None, :]
    initial_ensemble = jnp.sin(x)[None, :] + 0.3 * jax.random.normal(jax.random.PRNGKey(5), (E, nx))
    observation_locations = np.arange(0, nx, 8)
    pf = ParticleFilter(
        n_particles=E,
        n_steps=4,
        n_dim=nx,
        forward_model=ShiftModel(0.99),
        signal_model=ShiftModel(0.99),
        sigma=0.1,
        resampling="systematic",
        observation_locations=observation_locations,
    )
    da_steps = 5
    key = jax.random.PRNGKey(1)
    final, all = pf.run(initial_ensemble, initial_signal, da_steps, key)
    particles, signal, observations = (np.asarray(a) for a in all)
    noise = observations[:, 0, observation_locations] - signal[:, 0, observation_locations]
    print(noise[:, :3])
    assert not np.allclose(noise[1], noise[0], atol=1e-3)
    assert not hasattr(pf, "key")

    run_jit = jax.jit(pf.run, static_argnums=2)
    final2, all2 = run_jit(initial_ensemble, initial_signal, da_steps, jax.random.PRNGKey(1))  # same seed, same draws
    assert np.allclose(np.asarray(all2[0]), particles, atol=1e-5)
    final3, all3 = pf.run(initial_ensemble, initial_signal, da_steps, jax.random.PRNGKey(2))
    print("rerun ok", np.abs(np.asarray(all3[0]) - particles).max())
