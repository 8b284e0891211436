# source: https://github.com/jax-ml/jax/pull/3646 (examples/differentially_private_sgd.py
#   before the fix, at https://github.com/jax-ml/jax/blob/166e795d638349530accacb1a48261203b29ae67/examples/differentially_private_sgd.py)
# observed on jax 0.10.2 CPU: private_grad adds noise to every gradient leaf with
#   random.normal(rng, n.shape) of the one `rng`, so the leaves get the same draws: the
#   noise on the Dense(10) bias is the first 10 values of the noise on the Dense(32) bias
#   (the fix, "fix prng key reuse in differential privacy example", splits rng per leaf).
#   Current spelling: jax.experimental.{optimizers,stax} -> jax.example_libraries. FLAGS,
#   MNIST and the privacy accountant are replaced by constants, a random batch and nothing;
#   the list and tuple given to jnp.linalg.norm and jnp.amax are wrapped in jnp.array (jax
#   no longer accepts them); accuracy, compute_epsilon and main() are left out;
#   added: the __main__ block, whose second private_grad call draws from the same step
#   key on purpose, to take the noise-free gradient apart from the noise (tolerated).
# gap: other
from functools import partial

import jax
from jax import grad
from jax import jit
from jax import random
from jax import tree_util
from jax import vmap
from jax.example_libraries import optimizers
from jax.example_libraries import stax
from jax.lax import stop_gradient
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


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier,
                 batch_size):
  """Return differentially private gradients for params, evaluated on batch."""

  def _clipped_grad(params, single_example_batch):
    """Evaluate gradient for a single-example batch and clip its grad norm."""
    grads = grad(loss)(params, single_example_batch)

    nonempty_grads, tree_def = tree_util.tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(
        jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads]))
    divisor = stop_gradient(jnp.amax(jnp.array((total_grad_norm / l2_norm_clip, 1.))))
    normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
    return tree_util.tree_unflatten(tree_def, normalized_nonempty_grads)

  px_clipped_grad_fn = vmap(partial(_clipped_grad, params))
  std_dev = l2_norm_clip * noise_multiplier
  noise_ = lambda n: n + std_dev * random.normal(rng, n.shape)  # expect: JIT502
  normalize_ = lambda n: n / float(batch_size)
  tree_map = tree_util.tree_map
  sum_ = lambda n: jnp.sum(n, 0)  # aggregate
  aggregated_clipped_grads = tree_map(sum_, px_clipped_grad_fn(batch))
  noised_aggregated_clipped_grads = tree_map(noise_, aggregated_clipped_grads)
  normalized_noised_aggregated_clipped_grads = (
      tree_map(normalize_, noised_aggregated_clipped_grads)
  )
  return normalized_noised_aggregated_clipped_grads


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
  _, init_params = init_random_params(init_key, (-1, 28, 28, 1))
  opt_state = opt_init(init_params)
  opt_state = private_update(key, 0, opt_state, shape_as_image(images, labels, dummy_dim=True))

  params = get_params(opt_state)
  batch = shape_as_image(images, labels, dummy_dim=True)
  step_key = random.fold_in(key, 1)
  pg = jit(private_grad, static_argnums=(3, 4, 5))
  noisy = pg(params, batch, step_key, 1.0, 1.0, 1)
  clean = pg(params, batch, step_key, 1.0, 0.0, 1)  # tolerate: JIT502
  noise = jax.tree_util.tree_map(lambda a, b: a - b, noisy, clean)
  dense32_bias = noise[7][1]
  dense10_bias = noise[9][1]
  assert dense32_bias.shape == (32,) and dense10_bias.shape == (10,)
  # observed: line 74 draws the same noise for every leaf: the (10,) bias noise is the
  #   prefix of the (32,) bias noise
  assert jnp.allclose(dense10_bias, dense32_bias[:10], atol=1e-5), (dense10_bias, dense32_bias)
