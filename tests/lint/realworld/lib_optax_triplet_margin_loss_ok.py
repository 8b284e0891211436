# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/losses/_self_supervised.py
#   (triplet_margin_loss, optax 0.2.8 as released; docstring shortened to its example)
# observed on jax 0.10.2 CPU: runs clean under jit and reproduces the docstring's output
#   [0.1414 0.1414]: the dtype checks look at static dtypes, and `axis`, `norm_degree`,
#   `margin` and `eps` keep their Python defaults because the jitted call does not pass
#   them. The __main__ block (the docstring example, under jax.jit) is added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from optax._src import utils


def triplet_margin_loss(
    anchors: jax.typing.ArrayLike,
    positives: jax.typing.ArrayLike,
    negatives: jax.typing.ArrayLike,
    axis: int = -1,
    norm_degree: jax.typing.ArrayLike = 2,
    margin: jax.typing.ArrayLike = 1.0,
    eps: jax.typing.ArrayLike = 1e-6,
) -> jax.Array:
  """Returns the triplet loss for a batch of embeddings."""
  utils.check_subdtype(anchors, jnp.floating)
  utils.check_subdtype(positives, jnp.floating)
  utils.check_subdtype(negatives, jnp.floating)
  positive_distance = jnp.power(jnp.power(anchors - positives, norm_degree)
                                .sum(axis) + eps, 1 / norm_degree)
  negative_distance = jnp.power(jnp.power(anchors - negatives, norm_degree)
                                .sum(axis) + eps, 1 / norm_degree)
  loss = jnp.maximum(positive_distance - negative_distance + margin, 0)
  return loss


if __name__ == "__main__":
    anchors = jnp.array([[0.0, 0.0], [1.0, 1.0]])
    positives = jnp.array([[0.1, 0.1], [1.1, 1.1]])
    negatives = jnp.array([[1.0, 0.0], [0.0, 1.0]])
    output = jax.jit(triplet_margin_loss)(anchors, positives, negatives)
    assert jnp.allclose(output, jnp.array([0.1414, 0.1414]), atol=1e-4), output
