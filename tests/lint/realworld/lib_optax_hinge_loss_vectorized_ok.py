# source: https://github.com/google-deepmind/optax/blob/e10357c9071cc75abc0f5b543c65cdd1e0e042af/optax/_src/loss.py
#   ("Hinge loss for Binary case can be jitted": hinge_loss after the fix)
# observed on jax 0.10.2 CPU: jax.jit(hinge_loss) runs and matches the eager result.
#   Added: the imports and the __main__ block; `chex.Array` annotations are spelled
#   `jax.Array` (chex is not installed).
# gap: omnistaging
import jax
import jax.numpy as jnp


def hinge_loss(predictions: jax.Array, targets: jax.Array) -> jax.Array:
  """
  Computes the hinge loss for Binary Classification.

  Args:
    predictions: Predicted values with shape [..., dim].
    targets: Target values with shape [..., dim].
      Expected to be in range [-1, 1].

  Returns:
    Average Hinge Loss
  """
  assert predictions.shape[0] == targets.shape[0], "Predictions and Target lengths must be consistent."
  # Binary Case
  return jnp.mean(jnp.maximum(0, 1 - predictions * targets))


if __name__ == "__main__":
  predictions = jnp.array([-1.0, 1.0, 0.5, -0.5])
  targets = jnp.array([1.0, 1.0, -1.0, -1.0])
  out = jax.jit(hinge_loss)(predictions, targets)
  assert jnp.allclose(out, hinge_loss(predictions, targets))
