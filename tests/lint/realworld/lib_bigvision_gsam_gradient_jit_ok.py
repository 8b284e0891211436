# source: https://github.com/google-research/big_vision/blob/0a83553c79153ce6c3e4c2483d471eb683c137dc/big_vision/trainers/proj/gsam/gsam.py
#   (dual_vector and gsam_gradient, called as big_vision/trainers/proj/gsam/train.py's
#   update_fn calls them: the learning rate from the schedule at the traced step, the
#   rest from config.gsam)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: `if lr_max == lr_min:` compares
#   the config's Python floats, `if adaptive_perturbation:` and `if minimize_fp:` read
#   Python flags, and the traced learning rate only enters arithmetic; the step lowers the
#   loss with both settings of minimize_fp. Kept verbatim: dual_vector and gsam_gradient
#   (`jax.tree_map`, removed, is spelled `jax.tree_util.tree_map`). Stand-ins: a linear
#   model with a squared-error loss, a cosine schedule, optax SGD, and jax.jit in place of
#   the trainer's pmap (one CPU device, so no pmean); rho_max, rho_min and alpha are those
#   of configs/proj/gsam/vit_i1k_gsam_no_aug.py, and lr_max and lr_min follow it (lr and
#   linear_end * lr) with lr 0.1 in place of 0.003.
# gap: exemption-vs-JAX
'''This file provides jax implementation of GSAM.'''

import functools

import jax
import jax.numpy as jnp
import optax

def dual_vector(y):
  """Returns the solution of max_x y^T x s.t. ||x||_2 <= 1.
  Args:
    y: A pytree of numpy ndarray, vector y in the equation above.
  """
  gradient_norm = jnp.sqrt(sum(
        jnp.sum(jnp.square(e)) for e in jax.tree_util.tree_leaves(y)))
  normalized_gradient = jax.tree_util.tree_map(lambda x: x / gradient_norm, y)
  return normalized_gradient, gradient_norm

def gsam_gradient(loss_fn, params, inputs, targets,
                  rho_max, rho_min, alpha, lr, lr_max, lr_min, eps=1e-12,
                  adaptive_perturbation=False, minimize_fp=True):
  """
  Get the GSAM gradient (https://openreview.net/pdf?id=edONMAnhLu-).
  Args:
    loss_fn: the loss function.
    params: the model weights.
    inputs: the inputs to the loss function.
    targets: the targets to the loss function.
    rho_max: the maximum rho value for perturbation of weights.
    rho_min: the minimum rho value for perturbation of weights.
    alpha: the alpha value for the rho schedule, see Algorithm 1 in the paper.
    lr: current learning rate.
    lr_max: the maximum learning rate.
    lr_min: the minimum learning rate.
    eps: the epsilon value for numerical stability.
    adaptive_perturbation: if False, same perturbation as SAM,
        treat all parameters as a single vector,
        perturbation norm is calculated as the norm of the whole vector;
        If True, perturbation norm is proportional to parameter norm,
        this stabilizes training when different layers have weights
        of different scales.
        Emprically, setting it to True can handle 10x larger rho than
        setting it to False.
    minimize_fp: if True, min(f_p, h), original GSAM;
        if False, min(f, h), where f is the clean loss.
        f_p is the perturbed loss, h is the surrogate gap.
        If True, training dynamics is closer to SAM than conventional training,
        you might observe several loss spikes during training.
        If False, the training dynamics is closer to conventional training,
        and is often more stable (fewer loss spikes) during training.
  Returns:
    l_clean: the loss function value.
    g_gsam: the GSAM gradient. g_gsam is not averaged across workers,
        need to call "jax.lax.pmean" to average.

  Note:
    Setting `rho_max=rho_min` and `alpha=0` reduces GSAM to SAM.
  """
  l_clean, g_clean = jax.value_and_grad(loss_fn)(params, inputs, targets)
  g_clean_normalized, g_clean_length = dual_vector(g_clean)

  if lr_max == lr_min:
    sam_rho = rho_max
  else:
    sam_rho = rho_min + (rho_max - rho_min) * (lr - lr_min) / (lr_max - lr_min)

  # Per-worker perturbation.
  if adaptive_perturbation:
    param_sam = jax.tree_util.tree_map(lambda a, b: a + \
        jnp.abs(a) * sam_rho * b / (g_clean_length + eps), params, g_clean)
  else:
    param_sam = jax.tree_util.tree_map(lambda a, b: a + \
        sam_rho * b / (g_clean_length + eps), params, g_clean)

  # Get gradients at perturbed weights.
  _, g_robust = jax.value_and_grad(loss_fn)(param_sam, inputs, targets)

  # Decompose gradients.
  g_clean_flatten, _ = jax.tree_util.tree_flatten(g_clean)
  g_robust_flatten, _ = jax.tree_util.tree_flatten(g_robust)

  if minimize_fp:
    # Decompose g_clean onto parallel and vertical to g_robust.
    g_robust_normalized, _ = dual_vector(g_robust)
    g_robust_normalized_flatten, _ = jax.tree_util.tree_flatten(
        g_robust_normalized)

    g_clean_projection_norm = sum(jnp.vdot(p, q) for (p,q) in
        zip(g_robust_normalized_flatten, g_clean_flatten))
    g_clean_residual = jax.tree_util.tree_map(lambda a, b:
        a - g_clean_projection_norm * b, g_clean, g_robust_normalized)

    # Get GSAM gradient.
    g_gsam = jax.tree_util.tree_map(lambda a, b: a - b * alpha,
        g_robust, g_clean_residual)
  else:
    # Decompose g_robust onto parallel and vertical to g_clean.
    g_clean_normalized, g_clean_length = dual_vector(g_clean)
    g_clean_normalized_flatten, _ = jax.tree_util.tree_flatten(
        g_clean_normalized)

    g_robust_projection_norm = sum(jnp.vdot(p, q) for (p,q) in
        zip(g_clean_normalized_flatten, g_robust_flatten))
    g_robust_residual = jax.tree_util.tree_map(lambda a, b:
        a - g_robust_projection_norm * b, g_robust, g_clean_normalized)

    # Get GSAM gradient.
    g_gsam = jax.tree_util.tree_map(lambda a, b: a + b * alpha,
        g_clean, g_robust_residual)

  # Always return the clean loss (rather than the perturbed loss).
  return l_clean, g_gsam


if __name__ == "__main__":
  gsam_config = dict(rho_max=0.6, rho_min=0.1, alpha=0.6, lr_max=0.1, lr_min=0.01 * 0.1,
                     adaptive_perturbation=False, minimize_fp=True)
  sched_fn = optax.cosine_decay_schedule(1.0, decay_steps=100)
  tx = optax.sgd(1.0)

  def loss_fn(params, images, labels):
    logits = images @ params["w"] + params["b"]
    return jnp.mean(jnp.square(logits - labels))

  @functools.partial(jax.jit, static_argnames=("minimize_fp",))
  def update_fn(params, opt, images, labels, step, minimize_fp):
    """Update step."""
    learning_rate = sched_fn(step) * gsam_config["lr_max"]
    config = dict(gsam_config, minimize_fp=minimize_fp)
    l, grads = gsam_gradient(loss_fn=loss_fn, params=params, inputs=images,
        targets=labels, lr=learning_rate, **config)
    updates, opt = tx.update(grads, opt, params)
    updates = jax.tree_util.tree_map(lambda u: u * learning_rate, updates)
    params = optax.apply_updates(params, updates)
    return params, opt, l

  x_key, w_key = jax.random.split(jax.random.PRNGKey(0))
  images = jax.random.normal(x_key, (32, 5))
  labels = images @ jax.random.normal(w_key, (5, 1))
  for minimize_fp in (True, False):
    params = {"w": jnp.zeros((5, 1)), "b": jnp.zeros((1,))}
    opt = tx.init(params)
    losses = []
    for step in range(20):
      params, opt, l = update_fn(params, opt, images, labels, step, minimize_fp)
      losses.append(float(l))
    assert losses[-1] < losses[0], losses
