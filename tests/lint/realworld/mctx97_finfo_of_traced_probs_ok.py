# source: https://github.com/google-deepmind/mctx/blob/9fb73396abab4d9ea15460ad1b4c2bc3a869568e/mctx/_src/policies.py
#   (the four helpers of muzero_policy verbatim, before commit a8ea1be changed
#   jnp.finfo(probs) to jnp.finfo(probs.dtype); https://github.com/google-deepmind/mctx/issues/97
#   reported a FutureWarning about hashing a tracer there under jax 0.4.35. chex is not
#   installed, so a three-method stand-in gives its shape and type assertions. The __main__
#   block chains the helpers under jax.jit as muzero_policy does for its root)
# observed on jax 0.10.2 CPU: runs clean, with warnings raised as errors: jnp.finfo of a
#   traced array reads only its dtype, and the masks and temperature are JAX operations.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


class chex:  # stand-in for the chex package
  @staticmethod
  def assert_equal_shape(arrays):
    assert len({a.shape for a in arrays}) == 1, [a.shape for a in arrays]

  @staticmethod
  def assert_rank(x, rank):
    assert x.ndim == rank, (x.shape, rank)

  @staticmethod
  def assert_type(values, expected):
    assert all(isinstance(v, expected) for v in values), values


def _mask_invalid_actions(logits, invalid_actions):
  """Returns logits with zero mass to invalid actions."""
  if invalid_actions is None:
    return logits
  chex.assert_equal_shape([logits, invalid_actions])
  logits = logits - jnp.max(logits, axis=-1, keepdims=True)
  # At the end of an episode, all actions can be invalid. A softmax would then
  # produce NaNs, if using -inf for the logits. We avoid the NaNs by using
  # a finite `min_logit` for the invalid actions.
  min_logit = jnp.finfo(logits.dtype).min
  return jnp.where(invalid_actions, min_logit, logits)


def _get_logits_from_probs(probs):
  tiny = jnp.finfo(probs).tiny
  return jnp.log(jnp.maximum(probs, tiny))


def _add_dirichlet_noise(rng_key, probs, *, dirichlet_alpha,
                         dirichlet_fraction):
  """Mixes the probs with Dirichlet noise."""
  chex.assert_rank(probs, 2)
  chex.assert_type([dirichlet_alpha, dirichlet_fraction], float)

  batch_size, num_actions = probs.shape
  noise = jax.random.dirichlet(
      rng_key,
      alpha=jnp.full([num_actions], fill_value=dirichlet_alpha),
      shape=(batch_size,))
  noisy_probs = (1 - dirichlet_fraction) * probs + dirichlet_fraction * noise
  return noisy_probs


def _apply_temperature(logits, temperature):
  """Returns `logits / temperature`, supporting also temperature=0."""
  # The max subtraction prevents +inf after dividing by a small temperature.
  logits = logits - jnp.max(logits, keepdims=True, axis=-1)
  tiny = jnp.finfo(logits.dtype).tiny
  return logits / jnp.maximum(tiny, temperature)



if __name__ == "__main__":
  import warnings
  warnings.simplefilter("error")

  @jax.jit
  def root_policy(rng_key, prior_logits, invalid_actions, temperature):
    # as muzero_policy does with its root prior and, after search, the visit counts
    probs = jax.nn.softmax(_mask_invalid_actions(prior_logits, invalid_actions))
    noisy = _add_dirichlet_noise(rng_key, probs, dirichlet_alpha=0.3,
                                 dirichlet_fraction=0.25)
    logits = _mask_invalid_actions(_get_logits_from_probs(noisy), invalid_actions)
    return _apply_temperature(logits, temperature)

  out = root_policy(jax.random.PRNGKey(0), jnp.array([[1.0, 2.0, 0.5]]),
                    jnp.array([[False, False, True]]), 1.0)
  assert out.shape == (1, 3) and bool(jnp.all(jnp.isfinite(out))), out
  print(out)
