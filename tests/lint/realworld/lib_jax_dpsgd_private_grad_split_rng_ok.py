# source: https://github.com/jax-ml/jax/pull/3646 (examples/differentially_private_sgd.py
#   after the fix, at https://github.com/jax-ml/jax/blob/d10cf0e38f9281e16e7e84fa4fe289f6c5ae2654/examples/differentially_private_sgd.py)
# observed on jax 0.10.2 CPU: runs clean under jit: private_grad splits rng into one key per
#   gradient leaf, and the noise on the Dense(10) bias is no longer a prefix of the noise on
#   the Dense(32) bias. Current spelling: jax.experimental.{optimizers,stax} ->
#   jax.example_libraries. FLAGS, MNIST and the privacy accountant are replaced by
#   constants, a random batch and nothing; the list and tuple given to jnp.linalg.norm and
#   jnp.max are wrapped in jnp.array (jax no longer accepts them); accuracy,
#   compute_epsilon and main() are left out; added: the __main__ block.
# gap: other
import jax
from jax import grad
from jax import jit
from jax import random
from jax import vmap
from jax.example_libraries import optimizers
from jax.example_libraries import stax
from jax.tree_util import tree_flatten, tree_unflatten
import jax.numpy as jnp
import numpy.random as npr


class FLAGS:  # stand-in for absl flags
  learning_rate = .15
  noise_multiplier = 1.1
  l2_norm_clip = 1.0
  batch_size = 4


init_random_params, predict = stax.serial(
    stax.Conv(16, (8, 8), padding='SAME', strides=(2, 2)),
    stax.Relu,
    stax.MaxPool((2, 2), (1, 1)),
    stax.Conv(32, (4, 4), padding='VALID', strides=(2, 2)),
    stax.Relu,
    stax.MaxPool((2, 2), (1, 1)),
    stax.Flatten,
    stax.Dense(32),
    stax.Relu,
    stax.Dense(10),
)


def loss(params, batch):
  inputs, targets = batch
  logits = predict(params, inputs)
  logits = stax.logsoftmax(logits)  # log normalize
  return -jnp.mean(jnp.sum(logits * targets, axis=1))  # cross entropy loss


def clipped_grad(params, l2_norm_clip, single_example_batch):
  """Evaluate gradient for a single-example batch and clip its grad norm."""
  grads = grad(loss)(params, single_example_batch)
  nonempty_grads, tree_def = tree_flatten(grads)
  total_grad_norm = jnp.linalg.norm(
      jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads]))
  divisor = jnp.max(jnp.array((total_grad_norm / l2_norm_clip, 1.)))
  normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
  return tree_unflatten(tree_def, normalized_nonempty_grads)


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier,
                 batch_size):
  """Return differentially private gradients for params, evaluated on batch."""
  clipped_grads = vmap(clipped_grad, (None, None, 0))(params, l2_norm_clip, batch)
  clipped_grads_flat, grads_treedef = tree_flatten(clipped_grads)
  aggregated_clipped_grads = [g.sum(0) for g in clipped_grads_flat]
  rngs = random.split(rng, len(aggregated_clipped_grads))
  noised_aggregated_clipped_grads = [
      g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape)
      for r, g in zip(rngs, aggregated_clipped_grads)]
  normalized_noised_aggregated_clipped_grads = [
      g / batch_size for g in noised_aggregated_clipped_grads]
  return tree_unflatten(grads_treedef, normalized_noised_aggregated_clipped_grads)


def shape_as_image(images, labels, dummy_dim=False):
  target_shape = (-1, 1, 28, 28, 1) if dummy_dim else (-1, 28, 28, 1)
  return jnp.reshape(images, target_shape), labels


opt_init, opt_update, get_params = optimizers.sgd(FLAGS.learning_rate)


@jit
def private_update(rng, i, opt_state, batch):
  params = get_params(opt_state)
  rng = random.fold_in(rng, i)  # get new key for new random numbers
  return opt_update(
      i,
      private_grad(params, batch, rng, FLAGS.l2_norm_clip,
                   FLAGS.noise_multiplier, FLAGS.batch_size), opt_state)


if __name__ == "__main__":
  init_key, key = random.split(random.PRNGKey(0))
  npr.seed(0)
  images = npr.rand(FLAGS.batch_size, 28 * 28).astype("float32")
  labels = jnp.eye(10)[npr.randint(0, 10, FLAGS.batch_size)]
  batch = shape_as_image(images, labels, dummy_dim=True)
  _, init_params = init_random_params(init_key, (-1, 28, 28, 1))
  opt_state = opt_init(init_params)
  for i in range(2):
    opt_state = private_update(key, i, opt_state, batch)

  params = get_params(opt_state)
  noisy = jit(private_grad, static_argnums=(3, 4, 5))(
      params, batch, random.fold_in(key, 2), 1.0, 1.0, 1)
  clean = jax.tree_util.tree_map(
      lambda g: g.sum(0), vmap(clipped_grad, (None, None, 0))(params, 1.0, batch))
  noise = jax.tree_util.tree_map(lambda a, b: a - b, noisy, clean)
  assert not jnp.allclose(noise[9][1], noise[7][1][:10], atol=1e-3)
  assert all(bool(jnp.isfinite(l).all()) for l in jax.tree_util.tree_leaves(params))
