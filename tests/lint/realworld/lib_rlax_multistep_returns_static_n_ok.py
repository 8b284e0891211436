# source: https://github.com/google-deepmind/rlax/blob/4c5d25b2609879d321f5a432cdf88165574e57a7/rlax/_src/multistep.py
# observed on jax 0.10.2 CPU: runs clean under jax.jit of jax.vmap: lambda_returns scans
#   backwards over the traced trajectory; n_step_bootstrapped_returns gets n through
#   static_argnums (and in_axes=None) and unrolls `for i in reversed(range(n))` over it, with
#   `min(n - 1, seq_len)`, `[v_t[-1]] * pad_size` and the slices `r_t[i:i + seq_len]` on
#   Python ints; stop_target_gradients, left at False, only reaches lax.select. Kept from the
#   file: lambda_returns, n_step_bootstrapped_returns and discounted_returns, with their
#   docstrings shortened to the first line. chex is installed; rlax's unused `base` import is left out.
# gap: exemption-vs-JAX
from typing import Union
import chex
import jax
import jax.numpy as jnp

Array = chex.Array
Scalar = chex.Scalar
Numeric = chex.Numeric


def lambda_returns(
    r_t: Array,
    discount_t: Array,
    v_t: Array,
    lambda_: Numeric = 1.,
    stop_target_gradients: bool = False,
) -> Array:
  """Estimates a multistep truncated lambda return from a trajectory."""
  chex.assert_rank([r_t, discount_t, v_t, lambda_], [1, 1, 1, {0, 1}])
  chex.assert_type([r_t, discount_t, v_t, lambda_], float)
  chex.assert_equal_shape([r_t, discount_t, v_t])

  # If scalar make into vector.
  lambda_ = jnp.ones_like(discount_t) * lambda_

  # Work backwards to compute `G_{T-1}`, ..., `G_0`.
  def _body(acc, xs):
    returns, discounts, values, lambda_ = xs
    acc = returns + discounts * ((1-lambda_) * values + lambda_ * acc)
    return acc, acc

  _, returns = jax.lax.scan(
      _body, v_t[-1], (r_t, discount_t, v_t, lambda_), reverse=True)

  return jax.lax.select(stop_target_gradients,
                        jax.lax.stop_gradient(returns),
                        returns)


def n_step_bootstrapped_returns(
    r_t: Array,
    discount_t: Array,
    v_t: Array,
    n: int,
    lambda_t: Numeric = 1.,
    stop_target_gradients: bool = False,
) -> Array:
  """Computes strided n-step bootstrapped return targets over a sequence."""
  chex.assert_rank([r_t, discount_t, v_t, lambda_t], [1, 1, 1, {0, 1}])
  chex.assert_type([r_t, discount_t, v_t, lambda_t], float)
  chex.assert_equal_shape([r_t, discount_t, v_t])
  seq_len = r_t.shape[0]

  # Maybe change scalar lambda to an array.
  lambda_t = jnp.ones_like(discount_t) * lambda_t

  # Shift bootstrap values by n and pad end of sequence with last value v_t[-1].
  pad_size = min(n - 1, seq_len)
  targets = jnp.concatenate([v_t[n - 1:], jnp.array([v_t[-1]] * pad_size)])

  # Pad sequences. Shape is now (T + n - 1,).
  r_t = jnp.concatenate([r_t, jnp.zeros(n - 1)])
  discount_t = jnp.concatenate([discount_t, jnp.ones(n - 1)])
  lambda_t = jnp.concatenate([lambda_t, jnp.ones(n - 1)])
  v_t = jnp.concatenate([v_t, jnp.array([v_t[-1]] * (n - 1))])

  # Work backwards to compute n-step returns.
  for i in reversed(range(n)):
    r_ = r_t[i:i + seq_len]
    discount_ = discount_t[i:i + seq_len]
    lambda_ = lambda_t[i:i + seq_len]
    v_ = v_t[i:i + seq_len]
    targets = r_ + discount_ * ((1. - lambda_) * v_ + lambda_ * targets)

  return jax.lax.select(stop_target_gradients,
                        jax.lax.stop_gradient(targets), targets)


def discounted_returns(
    r_t: Array,
    discount_t: Array,
    v_t: Array,
    stop_target_gradients: bool = False,
) -> Array:
  """Calculates a discounted return from a trajectory."""
  chex.assert_rank([r_t, discount_t, v_t], [1, 1, {0, 1}])
  chex.assert_type([r_t, discount_t, v_t], float)

  # If scalar make into vector.
  bootstrapped_v = jnp.ones_like(discount_t) * v_t
  return lambda_returns(r_t, discount_t, bootstrapped_v, lambda_=1.,
                        stop_target_gradients=stop_target_gradients)


if __name__ == "__main__":
  k_r, k_v = jax.random.split(jax.random.key(0))
  r_t = jax.random.normal(k_r, (4, 10))
  v_t = jax.random.normal(k_v, (4, 10))
  discount_t = jnp.full((4, 10), 0.9)

  @jax.jit
  def targets(r_t, discount_t, v_t):
    lam = jax.vmap(lambda r, d, v: lambda_returns(r, d, v, lambda_=0.95))(r_t, discount_t, v_t)
    disc = jax.vmap(discounted_returns)(r_t, discount_t, v_t)
    return lam, disc

  n_step = jax.jit(jax.vmap(n_step_bootstrapped_returns, in_axes=(0, 0, 0, None)),
                   static_argnums=3)
  lam, disc = targets(r_t, discount_t, v_t)
  one_step = n_step(r_t, discount_t, v_t, 1)
  three_step = n_step(r_t, discount_t, v_t, 3)
  assert jnp.allclose(one_step, r_t + discount_t * v_t, atol=1e-5)
  assert jnp.allclose(
      three_step[:, 0],
      r_t[:, 0] + 0.9 * (r_t[:, 1] + 0.9 * (r_t[:, 2] + 0.9 * v_t[:, 2])), atol=1e-5)
  assert lam.shape == disc.shape == (4, 10)
