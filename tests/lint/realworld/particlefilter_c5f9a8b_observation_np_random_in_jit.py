# source: https://github.com/jameswoodfield/Particle_Filter/blob/c5f9a8b414b616ffa36d5da21d1eb2a330840b3e/filters/Resampling.py
#   ("Introducing basic resampling"; the file is unchanged until it is replaced by
#   filters/resampling.py in 23a0dd7, which comments `observation` and `update_weights` out and
#   draws the resampling noise from jax.random keys)
# observed on jax 0.10.2 CPU: `observation` is jitted and perturbs the observed data with
#   `sigma*np.random.randn(1,nx)`: NumPy draws once, while jit traces, and the draw is baked into
#   the compiled function as a constant, so every call of observation (and of the jitted
#   update_weights, which traces it inline) adds the very same "observation noise"; without jit
#   each call draws new noise.
# gap: other
# added: `import numpy as np` (the file uses np but never imports it), the __main__ block.
import numpy as np
import jax
import jax.numpy as jnp

@jax.jit
def observation(data,particles,sigma):
    """data[:,:] returns noisy observations, and output. """
    _,nx_h = data.shape
    E,nx = particles.shape
    freq_x = int(nx_h/nx)# 4
    observation_slice_data = jnp.s_[:,::freq_x] # e,::
    observations = data[observation_slice_data] + sigma*np.random.randn(1,nx)  # expect: JIT204
    out = particles[:,:] - observations
    return observations, out

@jax.jit
def update_weights(q,data,weights,sigma):
    particles = q
    E,nx = particles.shape
    observations, out = observation(data,particles,sigma)
    distance = jnp.linalg.norm(out, ord=2,axis=1)
    weights = weights*jnp.exp(-distance / sigma) #  exp(log(weights)*temperature)) # prior*likelyhood, normalised.
    weights += 1.e-16     # avoid round-off to zero
    _weights = weights/jnp.sum(weights) # normalize
    return _weights

def neff(weights):
    return 1. / jnp.sum(weights**2)


def multinomial_resample(weights):
    """
    #https://github.com/rlabbe/Kalman-and-Bayesian-Filters-in-Python/blob/master/12-Particle-Filters.ipynb
    """
    E = len(weights)
    cumulative_sum = jnp.cumsum(weights)
    cumulative_sum = cumulative_sum.at[-1].set(1.)  
    index = jnp.searchsorted(cumulative_sum, np.random.rand(E))  
    return index

def systematic_resample(weights):
    """The systematic resampling algorithm as implmented in: 
    #https://github.com/rlabbe/Kalman-and-Bayesian-Filters-in-Python/blob/master/12-Particle-Filters.ipynb
    """
    cumulative_sum = np.cumsum(weights)
    E = len(weights)
    positions = ( np.arange(E) + np.random.rand()*np.ones(E) ) / E
    indexes = np.zeros(E, 'i')
    i, j = 0, 0
    while i < E:
        if positions[i] < cumulative_sum[j]:
            indexes[i] = j
            i += 1
        else:
            j += 1
    return indexes

def systematic_resample_2(weights):
    """The systematic resampling algorithm, where"""
    cumulative_sum = jnp.cumsum(weights)
    E = len(weights)
    positions = ( jnp.arange(E) + np.random.rand()*jnp.ones(E) ) / E
    #key, subkey = random.split(key)
    #positions = 

    indexes = jnp.searchsorted(cumulative_sum, positions, side='left')
    return indexes


def resample_from_index(particles, weights, indexes):
    """resample particles from indexes and reset weights"""
    E = len(weights)
    particles = particles.at[:,:].set(particles[indexes,:])
    weights = weights.at[:].set( jnp.ones_like(weights)/E )
    return particles, weights

if __name__ == "__main__":
    E, nx, nx_h = 16, 8, 32
    data = jnp.sin(jnp.linspace(0, 2 * jnp.pi, nx_h))[None, :]
    particles = jnp.asarray(np.random.default_rng(0).normal(size=(E, nx)))
    sigma = 0.1
    obs1, _ = observation(data, particles, sigma)
    obs2, _ = observation(data, particles, sigma)
    w1 = update_weights(particles, data, jnp.ones(E) / E, sigma)
    w2 = update_weights(particles, data, jnp.ones(E) / E, sigma)
    # observed: line 23 draws its noise once, at trace time: repeated calls return the same noisy observation
    assert np.array_equal(np.asarray(obs1), np.asarray(obs2))
    assert not np.array_equal(np.asarray(obs1), np.asarray(data[:, ::4]))
    assert np.array_equal(np.asarray(w1), np.asarray(w2))
    with jax.disable_jit():
        e1, _ = observation(data, particles, sigma)
        e2, _ = observation(data, particles, sigma)
    assert not np.array_equal(np.asarray(e1), np.asarray(e2))
    print("jitted:", np.asarray(obs1 - obs2).max(), "eager:", np.abs(np.asarray(e1 - e2)).max())
    idx = systematic_resample_2(w1)
    particles, weights = resample_from_index(particles, w1, idx)
    print(neff(weights))
