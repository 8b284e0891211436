# source: https://github.com/google-deepmind/optax/blob/6e5bc08d9cb2626e16f799b06e8e70b46ec24a86/optax/losses/_classification.py
#   (sigmoid_binary_cross_entropy and sigmoid_focal_loss, before commit 7368964 "allow jit.")
# observed on jax 0.10.2 CPU: jax.jit(sigmoid_focal_loss)(logits, labels, 0.25) raises
#   TracerBoolConversionError at `if alpha:`: jit traces the float alpha. The module's
#   imports and the __main__ block are added; chex is not installed, so `chex.Array` is
#   spelled `jax.Array` and `chex.assert_type([logits], float)` is an assert on the dtype.
# gap: omnistaging
from typing import Tuple, Optional

import jax
import jax.numpy as jnp


def sigmoid_binary_cross_entropy(
    logits,
    labels,
):
  """Computes element-wise sigmoid cross entropy given logits and labels.

  This function can be used for binary or multiclass classification (where each
  class is an independent binary prediction and different classes are not
  mutually exclusive e.g. predicting that an image contains both a cat
  and a dog.)

  Because this function is overloaded, please ensure your `logits` and `labels`
  are compatible with each other. If you're passing in binary `labels` (values
  in {0, 1}), ensure your `logits` correspond to class 1 only. If you're
  passing in per-class target probabilities or one-hot `labels`, please ensure
  your `logits` are also multiclass. Be particularly careful if you're relying
  on implicit broadcasting to reshape `logits` or `labels`.

  References:
    [Goodfellow et al, 2016](http://www.deeplearningbook.org/contents/prob.html)

  Args:
    logits: Each element is the unnormalized log probability of a binary
      prediction. See note about compatibility with `labels` above.
    labels: Binary labels whose values are {0,1} or multi-class target
      probabilities. See note about compatibility with `logits` above.

  Returns:
    cross entropy for each binary prediction, same shape as `logits`.
  """
  assert jnp.issubdtype(logits.dtype, jnp.floating)
  labels = labels.astype(logits.dtype)
  log_p = jax.nn.log_sigmoid(logits)
  # log(1 - sigmoid(x)) = log_sigmoid(-x), the latter more numerically stable
  log_not_p = jax.nn.log_sigmoid(-logits)
  return -labels * log_p - (1. - labels) * log_not_p


def sigmoid_focal_loss(
    logits:  jax.Array,
    labels:  jax.Array,
    alpha: Optional[float] = None,
    gamma: float = 2,
) ->  jax.Array:
  """Compute a sigmoid focal loss.
  The focal loss is a re-weighted cross entropy for unbalanced problems.
  Use this loss function if classes are not mutually exclusive.
  See `sigmoid_binary_cross_entropy` for more information.

  References:
    Lin et al. 2018. https://arxiv.org/pdf/1708.02002.pdf
  
  Args:
    logits: Array of floats. The predictions for each example.
      The predictions for each example.
    labels: A float array. Labels and logits must have
      the same shape. The label array must contain the binary
      classification labels for each element in the data set
      (0 for the out-of-class and 1 for in-class).
    alpha: (optional) Weighting factor in range (0,1) to balance
      positive vs negative examples. Default None (no weighting).
    gamma: Exponent of the modulating factor (1 - p_t) to
      balance easy vs hard examples.

  Returns:
    A loss value array with a shape identical to the logits and target
    arrays.
  """
  assert jnp.issubdtype(logits.dtype, jnp.floating)
  labels = labels.astype(logits.dtype)
  # see also the original paper's implementation at:
  # https://github.com/facebookresearch/fvcore/blob/main/fvcore/nn/focal_loss.py
  p = jax.nn.sigmoid(logits)
  ce_loss = sigmoid_binary_cross_entropy(logits, labels)
  p_t = p * labels + (1 - p) * (1 - labels)
  loss = ce_loss * ((1 - p_t) ** gamma)
  if alpha:  # expect: JIT101
    alpha_t = alpha * labels + (1 - alpha) * (1 - labels)
    loss = alpha_t * loss
  return loss


if __name__ == "__main__":
    logits = jnp.array([0.3, -1.2, 2.0])
    labels = jnp.array([1.0, 0.0, 1.0])
    print(jax.jit(sigmoid_focal_loss)(logits, labels, 0.25))
