# source: https://github.com/google-deepmind/optax/blob/2aa24a6da143014d949ac42f51fa78cac558fd0c/optax/_src/stochastic_gradient_estimators_test.py
#   (fixed by google-deepmind/optax commit c3354dd2, "Prevent passing a non-hashable static
#   argument to a jitted function": static_argnums (0, 2, 3, 4) became (0, 2, 4))
# observed on jax 0.10.2 CPU (optax 0.2.8): the jitted estimator raises ValueError
#   "Non-hashable static arguments are not supported" at the call: argument 3 is the PRNG key
#   `rng`, a JAX array, which static_argnums marks static. optax no longer ships
#   stochastic_gradient_estimators; added: `pathwise_jacobians` from
#   optax/_src/stochastic_gradient_estimators.py at the same commit (docstring shortened, type annotations that name optax-internal types dropped),
#   `multi_normal` and the sampling part of
#   `MultiNormalDiagFromLogScale` from optax/_src/utils.py at the same commit (optax 0.2.8's
#   version samples with another signature) under a `utils` namespace, `jax.jit` standing in for chex's `with_jit` variant (`self.variant`), the body of
#   `testLinearFunction` as a plain function with its first parameters (its chex shape checks
#   left out, its `_assert_equal` spelled `np.testing.assert_allclose`), and its call.
# gap: static-hashability
import types

import jax
import jax.numpy as jnp
import numpy as np


def multi_normal(loc, log_scale):
  return MultiNormalDiagFromLogScale(loc=loc, log_scale=log_scale)


class MultiNormalDiagFromLogScale():
  """MultiNormalDiag which directly exposes its input parameters."""

  def __init__(self, loc, log_scale):
    self._log_scale = log_scale
    self._scale = jnp.exp(log_scale)
    self._mean = loc
    self._param_shape = jax.lax.broadcast_shapes(
        self._mean.shape, self._scale.shape)

  def sample(self, shape, seed):
    sample_shape = shape + self._param_shape
    return jax.random.normal(
        seed, shape=sample_shape) * self._scale  + self._mean


utils = types.SimpleNamespace(multi_normal=multi_normal)


def pathwise_jacobians(
    function,
    params,
    dist_builder,
    rng,
    num_samples):
  r"""Pathwise gradient estimation."""
  def surrogate(params):
    # We vmap the function application over samples - this ensures that the
    # function we use does not have to be vectorized itself.
    dist = dist_builder(*params)
    return jax.vmap(function)(dist.sample((num_samples,), seed=rng))

  return jax.jacfwd(surrogate)(params)


_estimator_to_num_samples = {
    pathwise_jacobians: 5 * 10**4,
}


def _ones(dims):
  return jnp.ones(shape=(dims), dtype=jnp.float32)


def _estimator_variant(variant, estimator):
  return variant(estimator, static_argnums=(0, 2, 3, 4))


def testLinearFunction(effective_mean, effective_log_scale, estimator, variant=jax.jit):
  data_dims = 3
  num_samples = _estimator_to_num_samples[estimator]
  rng = jax.random.PRNGKey(1)

  mean = effective_mean * _ones(data_dims)
  log_scale = effective_log_scale * _ones(data_dims)

  jacobians = _estimator_variant(variant, estimator)(  # expect: JIT302
      np.sum, [mean, log_scale],
      utils.multi_normal, rng, num_samples)

  mean_jacobians = jacobians[0]
  mean_grads = np.mean(mean_jacobians, axis=0)
  expected_mean_grads = np.ones(data_dims, dtype=np.float32)
  np.testing.assert_allclose(mean_grads, expected_mean_grads, rtol=1e-2, atol=1e-2)


testLinearFunction(0.5, -1., pathwise_jacobians)
