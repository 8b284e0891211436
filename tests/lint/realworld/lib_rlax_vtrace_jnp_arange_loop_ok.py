# source: https://github.com/google-deepmind/rlax/blob/1367d8b3db9674d7861bca71aad60f0242aa422f/rlax/_src/vtrace.py
#   (vtrace before 4ec43c9 "Iterate over Python range instead jnp.arange". Added: the chex
#   asserts as small stand-ins (shape and dtype checks; chex is not installed here), and the
#   __main__ block that runs vtrace eagerly and under jax.jit)
# observed on jax 0.10.2 CPU: under jax.jit, jnp.arange(v_t.shape[0] - 1, -1, -1) has a
#   static length, so the Python for loop unrolls over it; each i is a traced scalar and
#   td_errors[i] a dynamic index, which jit accepts: the jitted result equals the eager one.
# gap: exemption-vs-JAX
import collections

import jax
import jax.numpy as jnp


# stand-ins for the chex asserts vtrace calls (chex is not installed here): shape and
# dtype checks on the static shapes, as chex's are
class chex:
  Array = jax.Array

  @staticmethod
  def assert_rank(xs, ranks):
    assert all(jnp.ndim(x) == r for x, r in zip(xs, ranks))

  @staticmethod
  def assert_type(xs, types):
    assert all(jnp.issubdtype(jnp.result_type(x), jnp.floating) for x in xs)

  @staticmethod
  def assert_equal_shape(xs):
    assert len({jnp.shape(x) for x in xs}) == 1


Array = chex.Array
VTraceOutput = collections.namedtuple(
    'vtrace_output', ['errors', 'pg_advantage', 'q_estimate'])


def vtrace(
    v_tm1: Array,
    v_t: Array,
    r_t: Array,
    discount_t: Array,
    rho_tm1: Array,
    lambda_: float = 1.0,
    clip_rho_threshold: float = 1.0,
    stop_target_gradients: bool = True,
) -> Array:
  """Calculates V-Trace errors from importance weights.

  V-trace computes TD-errors from multistep trajectories by applying
  off-policy corrections based on clipped importance sampling ratios.

  See "IMPALA: Scalable Distributed Deep-RL with Importance Weighted Actor
  Learner Architectures" by Espeholt et al. (https://arxiv.org/abs/1802.01561).

  Args:
    v_tm1: values at time t-1.
    v_t: values at time t.
    r_t: reward at time t.
    discount_t: discount at time t.
    rho_tm1: importance sampling ratios.
    lambda_: scalar mixing parameter lambda.
    clip_rho_threshold: clip threshold for importance weights.
    stop_target_gradients: whether or not to apply stop gradient to targets.

  Returns:
    V-Trace error.
  """
  chex.assert_rank([v_tm1, v_t, r_t, discount_t, rho_tm1], [1, 1, 1, 1, 1])
  chex.assert_type([v_tm1, v_t, r_t, discount_t, rho_tm1],
                   [float, float, float, float, float])
  chex.assert_equal_shape([v_tm1, v_t, r_t, discount_t, rho_tm1])

  # Clip importance sampling ratios.
  c_t = jnp.minimum(1.0, rho_tm1) * lambda_
  clipped_rhos = jnp.minimum(clip_rho_threshold, rho_tm1)

  # Compute the temporal difference errors.
  td_errors = clipped_rhos * (r_t + discount_t * v_t - v_tm1)

  # Work backwards computing the td-errors.
  err = 0.0
  errors = []
  for i in jnp.arange(v_t.shape[0] - 1, -1, -1):
    err = td_errors[i] + discount_t[i] * c_t[i] * err
    errors.insert(0, err)

  # Return errors, maybe disabling gradient flow through bootstrap targets.
  return jax.lax.select(
      stop_target_gradients,
      jax.lax.stop_gradient(jnp.array(errors) + v_tm1) - v_tm1,
      jnp.array(errors))


if __name__ == "__main__":
  T = 5
  keys = jax.random.split(jax.random.PRNGKey(0), 4)
  v_tm1, v_t, r_t = (jax.random.normal(k, (T,)) for k in keys[:3])
  discount_t = jnp.full((T,), 0.9)
  rho_tm1 = jnp.exp(0.1 * jax.random.normal(keys[3], (T,)))
  eager = vtrace(v_tm1, v_t, r_t, discount_t, rho_tm1)
  jitted = jax.jit(vtrace)(v_tm1, v_t, r_t, discount_t, rho_tm1)
  assert jitted.shape == (T,)
  assert jnp.allclose(eager, jitted, atol=1e-5), (eager, jitted)
