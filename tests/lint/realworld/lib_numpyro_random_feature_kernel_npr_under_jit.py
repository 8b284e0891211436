# source: https://github.com/pyro-ppl/numpyro/blob/08c4bfe0d1637fece8ef96d7090ee055d6bfdcd9/numpyro/infer/einstein/kernels.py
# observed on jax 0.10.2 CPU: `RandomFeatureKernel.compute` as merged in numpyro#828, called
#   inside a jitted function as Stein VI does (the review of numpyro#842 asks whether its
#   `np.random` calls "happen 1 time and not happen under jit"): the random weights and biases
#   it caches on `self` are tracers of the first trace (lines 54-55), which a later trace for
#   another particle count uses and JAX refuses with UnexpectedTracerError; and the bandwidth
#   subset `npr.choice` (line 58) is drawn once, at trace time, so every later call of the
#   compiled function reuses the same subset. The abstract base class `SteinKernel` is dropped;
#   `safe_norm` is copied from numpyro/infer/einstein/utils.py at the same commit; the jitted
#   `kernel_matrix` driver and the __main__ block are added.
# gap: stale-state-attributes
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import numpy.random as npr


def safe_norm(a, ord=2, axis=None):
    if axis is not None:
        is_zero = jnp.expand_dims(jnp.isclose(jnp.sum(a, axis=axis), 0.), axis=axis)
    else:
        is_zero = jnp.ones_like(a, dtype='bool')
    norm = jnp.linalg.norm(a + jnp.where(is_zero, jnp.ones_like(a) * 1e-5 ** ord, jnp.zeros_like(a)), ord=ord,
                           axis=axis)
    return norm


class RandomFeatureKernel:
    """
    Calculates the random kernel
    :math:`k(x,y)= 1/m\\sum_{l=1}^{m}\\phi(x,w_l)\\phi(y,w_l),
    from [1].
    """

    def __init__(self, mode='norm', bandwidth_subset=None, random_indices=None,
                 bandwidth_factor: Callable[[float], float] = lambda n: 1 / jnp.log(n)):
        assert bandwidth_subset is None or bandwidth_subset > 0
        assert mode == 'norm'
        self._mode = 'norm'
        self.bandwidth_subset = bandwidth_subset
        self.random_indices = None
        self.bandwidth_factor = bandwidth_factor
        self._random_weights = None
        self._random_biases = None

    @property
    def mode(self):
        return self._mode

    def compute(self, particles, particle_info, loss_fn):
        if self._random_weights is None:
            self._random_weights = jnp.array(npr.randn(*particles.shape))  # expect: JIT202
            self._random_biases = jnp.array(npr.rand(*particles.shape) * 2 * np.pi)  # expect: JIT202
        factor = self.bandwidth_factor(particles.shape[0])
        if self.bandwidth_subset is not None:
            particles = particles[npr.choice(particles.shape[0], self.bandwidth_subset)]  # expect: JIT204
        diffs = jnp.expand_dims(particles, axis=0) - jnp.expand_dims(particles, axis=1)  # N x N x D
        if particles.ndim == 2:
            diffs = safe_norm(diffs, ord=2, axis=-1)  # N x N x D -> N x N
        diffs = jnp.reshape(diffs, (diffs.shape[0] * diffs.shape[1], -1))  # N * N x 1
        if diffs.ndim == 2:
            diff_norms = safe_norm(diffs, ord=2, axis=-1)
        else:
            diff_norms = diffs
        median = jnp.argsort(diff_norms)[int(diffs.shape[0] / 2)]
        bandwidth = jnp.abs(diffs)[median] ** 2 * factor + 1e-5

        def feature(x, w, b):
            return jnp.sqrt(2) * jnp.cos((x @ w + b) / bandwidth)

        def kernel(x, y):
            ws = self._random_weights if self.random_indices is None else self._random_weights[self.random_indices]
            bs = self._random_biases if self.random_indices is None else self._random_biases[self.random_indices]
            return jnp.sum(jax.vmap(lambda w, b: feature(x, w, b) * feature(y, w, b))(ws, bs))

        return kernel


kernel = RandomFeatureKernel(bandwidth_subset=3)


@jax.jit
def kernel_matrix(particles):
    k = kernel.compute(particles, {}, None)
    return jax.vmap(lambda x: jax.vmap(lambda y: k(x, y))(particles))(particles)


if __name__ == "__main__":
    npr.seed(0)
    particles = jax.random.normal(jax.random.PRNGKey(0), (5, 2))
    kernel_matrix(particles)
    # observed: line 54 and line 55 store tracers of the first trace on the kernel
    assert isinstance(kernel._random_weights, jax.core.Tracer)
    assert isinstance(kernel._random_biases, jax.core.Tracer)
    # observed: line 58 draws the subset at trace time only: the NumPy generator does not move
    state = npr.get_state()[1].copy()
    for shift in (1.0, 2.0, 3.0):
        kernel_matrix(particles + shift)
    assert (npr.get_state()[1] == state).all()
    try:
        kernel_matrix(jax.random.normal(jax.random.PRNGKey(1), (6, 2)))
    except jax.errors.UnexpectedTracerError:
        pass
    else:
        raise AssertionError("the leaked weights were not refused")
