# source: https://github.com/google-deepmind/optax/blob/eb6a334f40ef864b5e75203764c29b24e9a343a7/optax/_src/loss.py
#   (hinge_loss as first added, before "Hinge loss for Binary case can be jitted", e10357c9)
# observed on jax 0.10.2 CPU: jax.jit(hinge_loss) raises TracerBoolConversionError in the
#   list comprehension of new_predictions: `i == 0` on an element of the traced predictions
#   decides a Python conditional expression. The same comprehension over targets (next
#   line) is never reached. Added: the imports and the __main__ block; `chex.Array`
#   annotations are spelled `jax.Array` (chex is not installed).
# gap: omnistaging
import jax
import jax.numpy as jnp


def hinge_loss(predictions: jax.Array, targets: jax.Array) -> jax.Array:
  """
  Docstring
  """
  assert predictions.shape[0] == targets.shape[0], "Predictions and Target lengths must be consistent."

  # Binary Case
  new_predictions = jnp.array([-1 if i == 0 else i for i in predictions])  # expect: JIT101
  new_targets = jnp.array([-1 if i == 0 else i for i in targets])  # tolerate: JIT101

  loss = jnp.mean([jnp.maximum(jnp.array([0]), 1-x*y) for x, y in zip(new_targets, new_predictions)])
  return loss


if __name__ == "__main__":
  predictions = jnp.array([0.0, 1.0, 0.0, 1.0])
  targets = jnp.array([1.0, 1.0, 0.0, 0.0])
  jax.jit(hinge_loss)(predictions, targets)
