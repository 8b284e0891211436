# source: https://github.com/sAbhay/DP-SGD/blob/092472b83df6ae2c86377b563c3595429938f7c7/jax/optim/grad/private/aug_momentum.py
#   (a DP-SGD research repository's "augmult by momentum" private gradient: per-example
#   clipped gradients averaged over copies of the parameters pushed along the velocity;
#   jax/main.py calls it as pmap(partial(aug_momentum.private_grad, l2_norm_clip=...,
#   loss=loss, augmult=FLAGS.augmult, mult_radius=...), axis_name='i')(params, batch, rng,
#   velocity), with rng = random.fold_in(rng, i) broadcast over the devices; given
#   positionally there, `velocity` lands on l2_norm_clip and Python raises "got multiple
#   values", so the __main__ block passes it by keyword)
# observed on jax 0.10.2 CPU: private_grad draws the perturbation multipliers with
#   random.uniform(rng, ...) and then splits the same `rng` for the per-leaf gradient noise,
#   so the noise keys come from a key already consumed. With `jax_debug_key_reuse` on and a
#   typed key, the split raises KeyReuseError "Previously-consumed key passed to
#   random_split" at line 69 (__main__). The pmap call of main.py runs clean otherwise.
#   Current spelling: `from jax import tree_map` -> jax.tree_util.tree_map; the lists given to
#   jnp.linalg.norm and jnp.mean are wrapped in jnp.array (jax no longer accepts lists). The repository's
#   `common.log` logger is replaced by the standard logging module. Added: the __main__
#   block, with a linear softmax model, a random batch and the pmap call of main.py.
# gap: other
from jax import grad
from jax import jit
from jax import random
from jax import vmap
from jax.tree_util import tree_map
from jax.tree_util import tree_flatten, tree_unflatten
import jax.numpy as jnp

import logging
logger = logging.getLogger('aug_momentum')


def clipped_grad(params, l2_norm_clip, single_example_batch, loss):
    """Evaluate gradient for a single-example batch and clip its grad norm."""
    grads = grad(loss)(params, single_example_batch)
    nonempty_grads, tree_def = tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(
        jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads]))
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.)
    normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
    return tree_unflatten(tree_def, normalized_nonempty_grads), total_grad_norm


def clipped_grad_single_aug_params(params, l2_norm_clip, batch, loss):
    clipped_grads, total_grad_norm = vmap(clipped_grad, (None, None, 0, None))(params, l2_norm_clip, batch, loss)
    logger.info("Total grad norm shape: {}".format(total_grad_norm.shape))
    return clipped_grads, total_grad_norm


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier,
                 batch_size, loss, augmult, velocity, mult_radius):
    """Return differentially private gradients for params, evaluated on batch."""
    # logger.info("Batch shape: {}".format(batch[0].shape, batch[1].shape))
    mults = random.uniform(rng, shape=(augmult-1,), minval=-1, maxval=1) * mult_radius
    aug_params = generate_augmult_perturbed_params(params, velocity, mults, augmult) + [params]
    # clipped_grads, total_grad_norm = vmap(clipped_grad_single_aug_params, (0, None, None, None))(aug_params, l2_norm_clip, batch, loss)
    aug_clipped_grads = None
    aug_total_norms = []
    for param in aug_params:
        clipped_grads, total_grad_norm = clipped_grad_single_aug_params(param, l2_norm_clip, batch, loss)
        if aug_clipped_grads is None:
            aug_clipped_grads = clipped_grads
        else:
            aug_clipped_grads = tree_map(lambda g1, g2: g1 + g2, aug_clipped_grads, clipped_grads)
        aug_total_norms.append(total_grad_norm)
    total_grad_norm = jnp.mean(jnp.array(aug_total_norms))
    total_aug_norms = jnp.asarray(aug_total_norms)
    logger.info("Total grad norm shape: {}".format(total_grad_norm.shape))
    clipped_grads_flat, grads_treedef = tree_flatten(clipped_grads)
    aggregated_clipped_grads = [g.sum(0) for g in clipped_grads_flat]
    rngs = random.split(rng, len(aggregated_clipped_grads))  # expect: JIT502
    noised_aggregated_clipped_grads = [
        g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape)
        for r, g in zip(rngs, aggregated_clipped_grads)]
    normalized_noised_aggregated_clipped_grads = [
        g / batch_size for g in noised_aggregated_clipped_grads]
    return tree_unflatten(grads_treedef, normalized_noised_aggregated_clipped_grads), total_grad_norm, total_aug_norms


def generate_augmult_perturbed_params(params, velocity, mults, augmult):
    # augmult_params = util.tree_stack([params] * augmult)
    # aug_params = vmap(perturb_params_with_momentum, (0, None, 0))(augmult_params, velocity, mults)
    # return aug_params

    aug_params = []
    for i in range(augmult-1):
        aug_params.append(perturb_params_with_momentum(params, velocity, mults[i]))
    return aug_params




def perturb_params_with_momentum(params, velocity, mult):
    return tree_map(
        lambda p, v: p + mult * v,
        params,
        velocity,
    )


if __name__ == "__main__":
    import traceback
    from functools import partial
    import jax
    from jax import pmap

    def loss(params, batch):
        inputs, targets = batch
        logits = jax.nn.log_softmax(inputs @ params['w'] + params['b'])
        return -jnp.mean(jnp.sum(logits * targets, axis=-1))

    k1, k2, k3 = random.split(random.PRNGKey(0), 3)
    params = {'w': random.normal(k1, (1, 4, 3)), 'b': jnp.zeros((1, 3))}
    velocity = tree_map(lambda p: 0.1 * jnp.ones_like(p), params)
    batch = (random.normal(k2, (1, 8, 1, 4)),
             jax.nn.one_hot(random.randint(k3, (1, 8, 1), 0, 3), 3))
    rng = random.fold_in(random.PRNGKey(42), 0)
    rng = jnp.broadcast_to(rng, (1,) + rng.shape)
    grads, norm, aug_norms = pmap(partial(private_grad, l2_norm_clip=1.0, noise_multiplier=1.1,
                                          batch_size=8, loss=loss, augmult=3, mult_radius=0.5),
                                  axis_name='i')(params, batch, rng, velocity=velocity)
    assert grads['w'].shape == (1, 4, 3) and aug_norms.shape == (1, 3, 8)

    jax.config.update("jax_debug_key_reuse", True)
    one = tree_map(lambda x: x[0], (params, batch, velocity))
    try:
        private_grad(one[0], one[1], random.key(42), 1.0, 1.1, 8, loss, 3, one[2], 0.5)
        raise AssertionError("no KeyReuseError")
    except jax.errors.KeyReuseError as e:
        # observed: line 69 splits the key that the uniform draw above it consumed
        assert str(e).startswith("Previously-consumed key passed to random_split"), e
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 69, frames[-1]
