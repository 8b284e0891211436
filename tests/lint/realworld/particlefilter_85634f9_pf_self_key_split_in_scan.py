# source: https://github.com/jameswoodfield/Particle_Filter/blob/85634f9c0414634ba46baa4670e4a50218878f9c/filters/filter.py
#   (class ParticleFilter and get_log_weight/v_get_log_weight; the resampler registry and the
#   multinomial and systematic resamplers of filters/resampling.py at the same commit; fixed in
#   https://github.com/jameswoodfield/Particle_Filter/commit/593494be69dd1d95dce66b204efc8f26969d6f76
#   "supplying key externally to ParticleFilter class", which threads the key through the scan carry)
# observed on jax 0.10.2 CPU: `run` drives `run_step` with jax.lax.scan, which traces the body
#   once: `self.key, obs_key, sampling_key = jax.random.split(self.key, 3)` runs at trace time,
#   so every data-assimilation step draws its observation noise and its resampling uniforms
#   from the same two keys (the noise added to the signal is bit-identical at all five steps),
#   and the split key stored on `self.key` is a tracer of the finished scan: a second
#   `pf.run(...)` raises UnexpectedTracerError, whose message names that line as where
#   the leaked value was created. JAX's key-reuse checker names the scan call (line 113):
#   "scan body function leads to key reuse when repeatedly executed, because key constants are
#   repeatedly consumed", the same bug (tolerated).
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

    def __init__(self, n_particles, n_steps, n_dim, forward_model, signal_model, sigma, seed=0, resampling: str = "default", observation_locations=None):
        self.n_particles = n_particles
        self.n_steps = n_steps # no of steps of numerical model in between DA steps
        self.n_dim = n_dim # dimension of the state space (usually no of discretized grid points)
        self.fwd_model = forward_model # forward model for the ensemble
        self.signal_model = signal_model # forward model for the signal
        self.sigma = sigma # observation error standard deviation
        self.key = jax.random.PRNGKey(seed)
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

    def run_step(self, particles, signal):
        self.key, obs_key, sampling_key = jax.random.split(self.key, 3)  # expect: JIT202  # tolerate: JIT502
        signal = self.advance_signal(signal)
        particles = self.predict(particles)
        observation = self.observation_from_signal(signal, obs_key)

        particles = self.update(particles, observation, sampling_key)
        return particles, signal, observation

    def run(self, initial_particles, initial_signal, n_total):
        """_summary: Runs the initial particles_

        Args:
            initial_particles (_type_): _description_
            initial_signal (_type_): _description_
            n_total (_type_): _n_total is the number of data assimilation proceedures._
        """
        def scan_fn(val, i):
            particles, signal = val
            particles, signal, observation = self.run_step(particles, signal)
            return (particles, signal), (particles, signal, observation)
        
        final, all = jax.lax.scan(scan_fn, (initial_particles, initial_signal), jnp.arange(n_total))  # tolerate: JIT502
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
        seed=1,
        resampling="systematic",
        observation_locations=observation_locations,
    )
    da_steps = 5
    final, all = pf.run(initial_ensemble, initial_signal, da_steps)
    particles, signal, observations = (np.asarray(a) for a in all)
    noise = observations[:, 0, observation_locations] - signal[:, 0, observation_locations]
    print(noise[:, :3])
    # observed: line 92 splits self.key once, while scan traces the body: every DA step
    # adds the same observation noise (and resamples with the same uniforms)
    # (equal up to float32 rounding of signal + noise - signal; independent draws of sigma=0.1
    # noise would differ by about 0.14)
    assert np.allclose(noise, noise[0], rtol=0, atol=1e-6), noise
    assert np.abs(noise).max() > 0.05
    # observed: line 92 stores a tracer of the finished scan on pf.key
    assert isinstance(pf.key, jax.core.Tracer), type(pf.key)
    # observed: line 92 the next run splits the leaked tracer and fails
    try:
        pf.run(initial_ensemble, initial_signal, da_steps)
    except jax.errors.UnexpectedTracerError as e:
        # JAX names the line that created the leaked value
        assert f"{__file__}:92:" in str(e), str(e)
        print("second run:", type(e).__name__)
    else:
        raise AssertionError("second run did not fail")
