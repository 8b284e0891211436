# source: https://github.com/EdanToledo/Stoix/blob/8fff19c94a478c1e1ff75fbf10396d488aa25d70/stoix/utils/multistep.py
#   (batch_truncated_generalized_advantage_estimation and batch_n_step_bootstrapped_returns
#   as written, with the module's imports; the other return estimators of the module are left
#   out. Added: the __main__ block, which jits both the way Stoix's learners do (the Python
#   options, n and the booleans, fixed by functools.partial or static_argnames) and checks
#   them against plain NumPy loops.)
# observed on jax 0.10.2 CPU: runs clean; under jit the branches on None/time_major/
#   standardize_advantages, min(n - 1, seq_len) and the reversed(range(n)) loop all see
#   Python values, and the results match the NumPy references.
# gap: exemption-vs-JAX
from typing import Optional, Tuple, Union

import chex
import jax
import jax.numpy as jnp
from chex import Scalar
from jax import Array

# These functions are generally taken from rlax but edited to explicitly take in a batch of data.
# This is because the original rlax functions are not batched and are meant to be used with vmap,
# which can be much slower.


def batch_truncated_generalized_advantage_estimation(
    r_t: Array,
    discount_t: Array,
    lambda_: Union[Array, Scalar],
    values: Optional[Array] = None,
    v_tm1: Optional[Array] = None,
    v_t: Optional[Array] = None,
    truncation_t: Optional[Array] = None,
    stop_target_gradients: bool = False,
    time_major: bool = False,
    standardize_advantages: bool = False,
) -> Array:
    """Computes truncated generalized advantage estimates for batched sequences of length k.

    The advantages are computed in a backwards fashion according to the equation:
    Âₜ = δₜ + (γλ) * δₜ₊₁ + ... + ... + (γλ)ᵏ⁻ᵗ⁺¹ * δₖ₋₁
    where δₜ = rₜ₊₁ + γₜ₊₁ * v(sₜ₊₁) - v(sₜ).

    See Proximal Policy Optimization Algorithms, Schulman et al.:
    https://arxiv.org/abs/1707.06347

    Note: This paper uses a different notation than the RLax standard
    convention that follows Sutton & Barto. We use rₜ₊₁ to denote the reward
    received after acting in state sₜ, while the PPO paper uses rₜ.

    Args:
        r_t: Rewards tensor at times [1, k] with shape [B, T] for batch-major or [T, B]
            for time-major, where B is batch size and T is the number of time steps.
        discount_t: Discount tensor at times [1, k] with the same shape as r_t.
        lambda_: Mixing parameter; a scalar or tensor at times [1, k] with the same
            shape as r_t.
        values: Values tensor at times [0, k] with shape [B, T+1] for batch-major or
        [T+1, B] for time-major. Contains one more element than r_t along the time
        dimension. If None, the v_tm1 and v_t arguments must be provided. This is if
        truncation is not used, since in truncation special bootstrap values must be
        provided. This interface is just for convenience.
        v_tm1: Values tensor at times [0, k-1] with shape [B, T] for batch-major or
            [T, B] for time-major. These are the baseline values for the current states.
            Important: These are the values to be subtracted from the r_t + v_t targets.
            Due to autoreset, these values must skip the last time step T, autoreset
            makes the timestep go as [0, 1, 2, ..., T-1, 0, 1, 2, ..., T-1, 0, 1, ...].
        v_t: Values tensor at times [1, k] with the same shape as r_t.
            These are the values for bootstrapping from next states i.e. the v_t in
            r_t + v_t - v_tm1. To correctly handle truncation, these values need to include
            the values of the final timestep T. These values do not include the first timestep 0.
            Due to autoreset, these values must skip the first time step 0, so sequences look
            like [1, 2, ..., T-1, T, 1, 2, ..., T-1, T, 1, ...].
        stop_target_gradients: bool indicating whether or not to apply stop gradient
            to targets.
        time_major: bool indicating whether the input tensors are in time-major format
            (time dimension first) or batch-major format (batch dimension first).
        standardize_advantages: bool indicating whether to standardize the advantages.
        truncation_t: Truncation indicators tensor at times [1, k] with the same shape
            as r_t, where 1 indicates a truncation point and 0 indicates a normal step.
            If None, no truncation is assumed.

    Returns:
      A tuple containing:
        - advantages: The generalized advantage estimates at times [0, k-1].
        - target_values: The target values for value function training, computed
          as values + advantages (i.e., values plus advantage estimates).
    """
    # if truncation flags are provided, we need to ensure that v_tm1 and v_t are provided
    if truncation_t is not None:
        chex.assert_type([v_tm1, v_t], float)

    # If no values are provided, we assume that v_tm1 and v_t are provided.
    # If values are provided, we use them to create v_tm1 and v_t.
    if values is None:
        chex.assert_type([v_tm1, v_t], float)
    else:
        chex.assert_rank([values], 2)
        chex.assert_type([values], float)
        if time_major:
            v_tm1 = values[:-1]
            v_t = values[1:]
        else:
            v_tm1 = values[:, :-1]
            v_t = values[:, 1:]

    chex.assert_rank([r_t, discount_t, v_tm1, v_t], 2)
    chex.assert_type([r_t, discount_t, v_tm1, v_t], float)
    chex.assert_equal_shape([r_t, v_tm1, v_t])
    lambda_ = jnp.ones_like(discount_t) * lambda_  # If scalar, make into vector.

    # Default truncation_t to all zeros if not provided
    if truncation_t is None:
        truncation_t = jnp.zeros_like(discount_t)
    else:
        chex.assert_rank([truncation_t], 2)
        chex.assert_equal_shape([truncation_t, discount_t])
        truncation_t = truncation_t.astype(float)

    if not time_major:
        r_t = jnp.transpose(r_t, (1, 0))
        discount_t = jnp.transpose(discount_t, (1, 0))
        v_tm1 = jnp.transpose(v_tm1, (1, 0))
        v_t = jnp.transpose(v_t, (1, 0))
        lambda_ = jnp.transpose(lambda_, (1, 0))
        truncation_t = jnp.transpose(truncation_t, (1, 0))

    # Use bootstrap_values directly for handling autoreset correctly
    delta_t = r_t + discount_t * v_t - v_tm1

    # Iterate backwards to calculate advantages.
    def _body(acc: Array, xs: Tuple[Array, Array, Array, Array]) -> Tuple[Array, Array]:
        deltas, discounts, lambda_, truncation = xs
        # Reset accumulator at truncation points while still using the current delta
        acc = deltas + discounts * lambda_ * acc * (1.0 - truncation)
        return acc, acc

    _, advantage_t = jax.lax.scan(
        _body,
        jnp.zeros(r_t.shape[1]),
        (delta_t, discount_t, lambda_, truncation_t),
        reverse=True,
    )

    target_values = v_tm1 + advantage_t

    if not time_major:
        advantage_t = jnp.transpose(advantage_t, (1, 0))
        target_values = jnp.transpose(target_values, (1, 0))

    if standardize_advantages:
        advantage_t = jax.nn.standardize(advantage_t, axis=(0, 1))

    if stop_target_gradients:
        advantage_t = jax.lax.stop_gradient(advantage_t)
        target_values = jax.lax.stop_gradient(target_values)

    return advantage_t, target_values


def batch_n_step_bootstrapped_returns(
    r_t: Array,
    discount_t: Array,
    v_t: Array,
    n: int,
    lambda_t: float = 1.0,
    stop_target_gradients: bool = True,
) -> Array:
    """Computes strided n-step bootstrapped return targets over a batch of sequences.

    The returns are computed according to the below equation iterated `n` times:

        Gₜ = rₜ₊₁ + γₜ₊₁ [(1 - λₜ₊₁) vₜ₊₁ + λₜ₊₁ Gₜ₊₁].

    When lambda_t == 1. (default), this reduces to

        Gₜ = rₜ₊₁ + γₜ₊₁ * (rₜ₊₂ + γₜ₊₂ * (... * (rₜ₊ₙ + γₜ₊ₙ * vₜ₊ₙ ))).

    Args:
        r_t: rewards at times B x [1, ..., T].
        discount_t: discounts at times B x [1, ..., T].
        v_t: state or state-action values to bootstrap from at time B x [1, ...., T].
        n: number of steps over which to accumulate reward before bootstrapping.
        lambda_t: lambdas at times B x [1, ..., T]. Shape is [], or B x [T-1].
        stop_target_gradients: bool indicating whether or not to apply stop gradient
        to targets.

    Returns:
        estimated bootstrapped returns at times B x [0, ...., T-1]
    """
    # swap axes to make time axis the first dimension
    r_t, discount_t, v_t = jax.tree_util.tree_map(
        lambda x: jnp.swapaxes(x, 0, 1), (r_t, discount_t, v_t)
    )
    seq_len = r_t.shape[0]
    batch_size = r_t.shape[1]

    # Maybe change scalar lambda to an array.
    lambda_t = jnp.ones_like(discount_t) * lambda_t

    # Shift bootstrap values by n and pad end of sequence with last value v_t[-1].
    pad_size = min(n - 1, seq_len)
    targets = jnp.concatenate([v_t[n - 1 :], jnp.array([v_t[-1]] * pad_size)], axis=0)

    # Pad sequences. Shape is now (T + n - 1,).
    r_t = jnp.concatenate([r_t, jnp.zeros((n - 1, batch_size))], axis=0)
    discount_t = jnp.concatenate([discount_t, jnp.ones((n - 1, batch_size))], axis=0)
    lambda_t = jnp.concatenate([lambda_t, jnp.ones((n - 1, batch_size))], axis=0)
    v_t = jnp.concatenate([v_t, jnp.array([v_t[-1]] * (n - 1))], axis=0)

    # Work backwards to compute n-step returns.
    for i in reversed(range(n)):
        r_ = r_t[i : i + seq_len]
        discount_ = discount_t[i : i + seq_len]
        lambda_ = lambda_t[i : i + seq_len]
        v_ = v_t[i : i + seq_len]
        targets = r_ + discount_ * ((1.0 - lambda_) * v_ + lambda_ * targets)

    targets = jnp.swapaxes(targets, 0, 1)
    return jax.lax.select(stop_target_gradients, jax.lax.stop_gradient(targets), targets)


if __name__ == "__main__":
    import functools

    import numpy as np

    B, T = 3, 6
    k_r, k_d, k_v = jax.random.split(jax.random.PRNGKey(0), 3)
    r_t = jax.random.normal(k_r, (B, T))
    discount_t = 0.99 * (jax.random.uniform(k_d, (B, T)) > 0.2).astype(jnp.float32)
    values = jax.random.normal(k_v, (B, T + 1))

    gae = jax.jit(
        functools.partial(
            batch_truncated_generalized_advantage_estimation,
            time_major=False,
            stop_target_gradients=True,
        )
    )
    adv, targets = gae(r_t, discount_t, 0.95, values)

    r, d, v = np.asarray(r_t), np.asarray(discount_t), np.asarray(values)
    ref = np.zeros((B, T))
    acc = np.zeros(B)
    for t in reversed(range(T)):
        delta = r[:, t] + d[:, t] * v[:, t + 1] - v[:, t]
        acc = delta + d[:, t] * 0.95 * acc
        ref[:, t] = acc
    assert np.allclose(adv, ref, atol=1e-5)
    assert np.allclose(targets, v[:, :-1] + ref, atol=1e-5)

    std_adv, _ = jax.jit(
        batch_truncated_generalized_advantage_estimation,
        static_argnames=("time_major", "standardize_advantages"),
    )(r_t, discount_t, 0.95, values, standardize_advantages=True)
    assert abs(float(jnp.mean(std_adv))) < 1e-5

    n_step = jax.jit(batch_n_step_bootstrapped_returns, static_argnames=("n",))
    v_t = values[:, 1:]
    returns = n_step(r_t, discount_t, v_t, n=3)
    vv = np.asarray(v_t)
    ref = np.zeros((B, T))
    for t in range(T):
        g = vv[:, min(t + 2, T - 1)]
        for i in reversed(range(t, min(t + 3, T))):
            g = r[:, i] + d[:, i] * g
        ref[:, t] = g
    assert np.allclose(returns, ref, atol=1e-5), (returns, ref)
