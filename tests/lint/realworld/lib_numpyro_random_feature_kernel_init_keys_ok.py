# source: https://github.com/pyro-ppl/numpyro/blob/d5598e73b549748e35a04b30d20e82f61dc46a36/numpyro/contrib/einstein/stein_kernels.py
# observed on jax 0.10.2 CPU: runs clean. The current `RandomFeatureKernel` draws its random
#   weights, biases and bandwidth subset from a JAX key in `init`, called outside the trace, and
#   `compute` under jit only reads them and raises on a shape mismatch, so nothing is stored on
#   the kernel from inside the trace and the compiled function keeps its subset by design. The
#   abstract base class `SteinKernel` is dropped and the long docstring shortened;
#   `median_bandwidth` is imported from the installed numpyro (stein_util); the jitted
#   `kernel_matrix` driver and the __main__ block are added.
# gap: stale-state-attributes
from collections.abc import Callable

import numpy as np

import jax
from jax import numpy as jnp, random

from numpyro.contrib.einstein.stein_util import median_bandwidth


class RandomFeatureKernel:
    """Calculates the Gaussian variate of random kernel in eq. 5 and 6 of [1]."""

    def __init__(
        self,
        mode="norm",
        bandwidth_subset=None,
        bandwidth_factor: Callable[[float], float] = lambda n: 1 / jnp.log(n),
    ):
        assert bandwidth_subset is None or bandwidth_subset > 0
        assert mode == "norm"
        self._mode = "norm"
        self.bandwidth_subset = bandwidth_subset
        self.random_indices = None
        self.bandwidth_factor = bandwidth_factor
        self._random_weights = None
        self._random_biases = None
        self._bandwidth_subset_indices = None

    @property
    def mode(self):
        return self._mode

    def init(self, rng_key, particles_shape):
        rng_key, rng_weight, rng_bias = random.split(rng_key, 3)
        self._random_weights = random.normal(rng_weight, shape=particles_shape)
        self._random_biases = random.uniform(
            rng_bias, shape=particles_shape, maxval=(2 * np.pi)
        )
        if self.bandwidth_subset is not None:
            self._bandwidth_subset_indices = random.choice(
                rng_key, particles_shape[0], (self.bandwidth_subset,)
            )

    def compute(self, rng_key, particles, particle_info, loss_fn):
        if self._random_weights is None:
            raise RuntimeError(
                "The `.init` method should be called first to initialize the"
                " random weights, biases and subset indices."
            )
        if particles.shape != self._random_weights.shape:
            raise ValueError(
                "Shapes of `particles` and the random weights are mismatched, got {}"
                " and {}.".format(particles.shape, self._random_weights.shape)
            )
        if self.bandwidth_subset is not None:
            particles = particles[self._bandwidth_subset_indices]

        bandwidth = median_bandwidth(particles, self.bandwidth_factor)

        def feature(x, w, b):
            return jnp.sqrt(2) * jnp.cos((x @ w + b) / bandwidth)

        def kernel(x, y):
            ws = (
                self._random_weights
                if self.random_indices is None
                else self._random_weights[self.random_indices]
            )
            bs = (
                self._random_biases
                if self.random_indices is None
                else self._random_biases[self.random_indices]
            )
            return jnp.sum(
                jax.vmap(lambda w, b: feature(x, w, b) * feature(y, w, b))(ws, bs)
            )

        return kernel


kernel = RandomFeatureKernel(bandwidth_subset=3)


@jax.jit
def kernel_matrix(rng_key, particles):
    k = kernel.compute(rng_key, particles, {}, None)
    return jax.vmap(lambda x: jax.vmap(lambda y: k(x, y))(particles))(particles)


if __name__ == "__main__":
    init_key, data_key, key1, key2 = random.split(random.PRNGKey(0), 4)
    particles = random.normal(data_key, (5, 2))
    kernel.init(init_key, particles.shape)
    k1 = kernel_matrix(key1, particles)
    k2 = kernel_matrix(key2, particles + 1.0)
    assert not isinstance(kernel._random_weights, jax.core.Tracer)
    assert k1.shape == (5, 5) and bool(jnp.all(jnp.isfinite(k2)))
