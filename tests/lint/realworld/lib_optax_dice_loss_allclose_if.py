# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/losses/_segmentation.py
#   (_reduce_loss and dice_loss, optax 0.2.8 as released and unchanged on main; docstring
#   shortened, pytype comments dropped)
# observed on jax 0.10.2 CPU: `jax.jit(partial(dice_loss, apply_softmax=False))(probs,
#   targets)` raises TracerBoolConversionError at the input check `if not jnp.allclose(...)`:
#   the sums of the traced predictions are tested with a Python `if`. The library's own jit
#   test uses the default apply_softmax=True, which skips the check. The __main__ block
#   (probabilities that sum to 1, one-hot targets) is added.
# gap: exemption-vs-JAX
import functools
from typing import Optional

import jax
import jax.numpy as jnp
from optax._src import utils


def _reduce_loss(
    loss: jax.Array, reduction: str, axis: Optional[int] = None
) -> jax.Array:
  if reduction == "mean":
    return jnp.mean(loss, axis=axis)
  elif reduction == "sum":
    return jnp.sum(loss, axis=axis)
  elif reduction == "none":
    return loss
  else:
    raise ValueError(f"Unsupported reduction: {reduction}")


def dice_loss(
    predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    *,
    class_weights: Optional[jax.typing.ArrayLike] = None,
    smooth: jax.typing.ArrayLike = 1.,
    alpha: jax.typing.ArrayLike = 0.5,
    beta: jax.typing.ArrayLike = 0.5,
    apply_softmax: bool = True,
    reduction: str = "mean",
    ignore_background: bool = False,
    axis: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Computes the Dice Loss for multi-class segmentation."""

  if predictions.ndim == targets.ndim - 1:
    predictions = predictions[..., None]
  if targets.ndim == predictions.ndim - 1:
    targets = targets[..., None]
  utils.check_shapes_equal(predictions, targets)

  # Input validation for probability distributions
  if not apply_softmax:
    # Tolerance for numerical stability
    pred_sums = jnp.sum(predictions, axis=-1)
    if not jnp.allclose(pred_sums, 1.0, rtol=1e-5):  # expect: JIT101
      raise ValueError(
          "When apply_softmax=False, predictions must be valid "
          "probability distributions that sum to 1 along the class axis. "
          f"Found sum range: [{jnp.min(pred_sums):.6f}, "  # tolerate: JIT401
          f"{jnp.max(pred_sums):.6f}]"  # tolerate: JIT401
      )

  # Convert logits to probabilities
  probs = predictions
  if apply_softmax:
    probs = (
        jax.nn.sigmoid(predictions)
        if predictions.shape[-1] == 1
        else jax.nn.softmax(predictions, axis=-1)
    )

  # Default behavior: sum over all spatial dimensions (except first/last)
  axis = tuple(range(1, probs.ndim - 1)) if axis is None else axis

  # Compute intersection and sums over specified axes
  intersection = jnp.sum(probs * targets, axis=axis)
  pred_sum = jnp.sum(probs, axis=axis)
  target_sum = jnp.sum(targets, axis=axis)

  # Generalized Dice calculation
  numerator = intersection + smooth
  denominator = (
      intersection
      + alpha * (pred_sum - intersection)
      + beta * (target_sum - intersection)
      + smooth
  )
  coeff = numerator / denominator
  dice_l = 1.0 - coeff  # [..., classes]

  # Apply class weights if provided
  if class_weights is not None:
    utils.check_rank(class_weights, 1)
    dice_l = dice_l * class_weights

  # Handle background class ignoring
  if ignore_background and probs.shape[-1] > 1:
    # Exclude the first class (background) from loss computation
    dice_l = dice_l[..., 1:]

  # Reduce across classes according to reduction parameter
  dice_l = _reduce_loss(dice_l, reduction, axis=-1)

  return dice_l


if __name__ == "__main__":
    key = jax.random.PRNGKey(0)
    probs = jax.nn.softmax(jax.random.normal(key, (2, 4, 4, 3)), axis=-1)
    targets = jax.nn.one_hot(jax.random.randint(key, (2, 4, 4), 0, 3), 3)  # tolerate: JIT502
    print(dice_loss(probs, targets, apply_softmax=False))  # fine without jit
    jax.jit(functools.partial(dice_loss, apply_softmax=False))(probs, targets)
