# source: https://github.com/google-deepmind/deepmind-research/blob/5909da5388d818791a64dd38bb2cc1f0dabc9fcf/adversarial_robustness/jax/attacks.py
#   (DeepMind's JAX adversarial attacks for "Fixing Data Augmentation to Improve Adversarial
#   Robustness": PGD with pluggable step optimizers, random l-inf initialisation and
#   projection, run in a lax.fori_loop)
# observed on jax 0.10.2 CPU: runs clean under jit. StepOptimizer.init stores the loss
#   closure on the optimizer object (self._loss_fn = loss_fn) while PGD.__call__ is traced;
#   the attribute holds a function of tracers after the trace, but it is only read inside
#   the same trace (by minimize in the fori_loop body) and every new trace rebinds it, so
#   nothing stale is ever used. eval.py's PGD-40 attack (Adam with an optax
#   piecewise-constant schedule, margin loss) inside one jitted function compiles once over
#   three batches with different keys and data; every adversarial image stays within
#   epsilon of the clean one and inside [0, 1]; the jitted result equals the eager one for
#   the same key; two keys give different random starts; the margin loss drops below its
#   clean value.
# gap: exemption-vs-JAX
# Kept: attacks.py's code as written (the Apache license header and the long usage part of
#   the module docstring trimmed). Changed: jax.tree_map (removed from JAX) is spelled
#   jax.tree_util.tree_map. Added: the __main__ block, with a linear stand-in model and
#   eval.py's attack configuration.
"""Adversarial attacks.

This file contains all the code necessary to create untargeted adversarial
attacks in JAX (within an l-infinity ball).
"""

import functools
import inspect
from typing import Callable, Optional, Tuple, Union

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import optax


ModelFn = Callable[[chex.Array], chex.Array]
LossFn = Callable[[chex.Array], chex.Array]
ClassificationLossFn = Callable[[chex.Array, chex.Array], chex.Array]
OptimizeFn = Callable[[LossFn, chex.PRNGKey, chex.Array], chex.Array]
NormalizeFn = Callable[[chex.Array], chex.Array]
InitializeFn = Callable[[chex.PRNGKey, chex.Array], chex.Array]
ProjectFn = Callable[[chex.Array, chex.Array], chex.Array]


def untargeted_cross_entropy(logits: chex.Array,
                             labels: chex.Array) -> chex.Array:
  """Maximize the cross-entropy of the true class (make it less likely)."""
  num_classes = logits.shape[-1]
  log_probs = jax.nn.log_softmax(logits)
  return jnp.sum(
      hk.one_hot(labels, num_classes).astype(logits.dtype) * log_probs, axis=-1)


def untargeted_kl_divergence(logits: chex.Array,
                             label_probs: chex.Array) -> chex.Array:
  """Maximize the KL divergence between logits and label distribution."""
  # We are explicitly maximizing the cross-entropy, as this is equivalent to
  # maximizing the KL divergence (when `label_probs` does not depend
  # on the values that produce `logits`).
  log_probs = jax.nn.log_softmax(logits)
  return jnp.sum(label_probs * log_probs, axis=-1)


def untargeted_margin(logits: chex.Array,
                      labels: chex.Array) -> chex.Array:
  """Make the highest non-correct logits higher than the true class logits."""
  batch_size = logits.shape[0]
  num_classes = logits.shape[-1]
  label_logits = logits[jnp.arange(batch_size), labels]
  logit_mask = hk.one_hot(labels, num_classes).astype(logits.dtype)
  highest_logits = jnp.max(logits - 1e8 * logit_mask, axis=-1)
  return label_logits - highest_logits


class UntargetedAttack:
  """Performs an untargeted attack."""

  def __init__(self,
               optimize_fn: OptimizeFn,
               loss_fn: ClassificationLossFn = untargeted_cross_entropy):
    """Creates an untargeted attack.

    Args:
      optimize_fn: An `Optimizer` instance or any callable that takes
        a loss function and an initial input and outputs a new input that
        minimizes the loss function.
      loss_fn: `loss_fn` is a surrogate loss. Its goal should be make the true
        class less likely than any other class. Typical options for `loss_fn`
        are `untargeted_cross_entropy` or `untargeted_margin`.
    """
    self._optimize_fn = optimize_fn
    self._loss_fn = loss_fn

  def __call__(self,
               logits_fn: ModelFn,
               rng: chex.PRNGKey,
               inputs: chex.Array,
               labels: chex.Array) -> chex.Array:
    """Returns adversarial inputs."""
    def _loss_fn(x):
      return self._loss_fn(logits_fn(x), labels)
    return self._optimize_fn(_loss_fn, rng, inputs)

  # Convenience functions to detect the type of inputs required by the loss.
  def expects_labels(self):
    return 'labels' in inspect.getfullargspec(self._loss_fn).args

  def expects_probabilities(self):
    return 'label_probs' in inspect.getfullargspec(self._loss_fn).args


class StepOptimizer:
  """Makes a single gradient step that minimizes a loss function."""

  def __init__(self,
               gradient_transformation: optax.GradientTransformation):
    self._gradient_transformation = gradient_transformation

  def init(self,
           loss_fn: LossFn,
           x: chex.Array) -> optax.OptState:
    self._loss_fn = loss_fn
    return self._gradient_transformation.init(x)

  def minimize(
      self,
      x: chex.Array,
      state: optax.OptState) -> Tuple[chex.Array, chex.Array, optax.OptState]:
    """Performs a single minimization step."""
    g, loss = gradients_fn(self._loss_fn, x)
    if g is None:
      raise ValueError('loss_fn does not depend on input.')
    updates, state = self._gradient_transformation.update(g, state, x)
    return optax.apply_updates(x, updates), loss, state


class SGD(StepOptimizer):
  """Vanilla gradient descent optimizer."""

  def __init__(self,
               learning_rate_fn: Union[float, int, optax.Schedule],
               normalize_fn: Optional[NormalizeFn] = None):
    # Accept schedules, as well as scalar values.
    if isinstance(learning_rate_fn, (float, int)):
      lr = float(learning_rate_fn)
      learning_rate_fn = lambda _: lr
    # Normalization.
    def update_fn(updates, state, params=None):
      del params
      updates = jax.tree_util.tree_map(normalize_fn or (lambda x: x), updates)
      return updates, state
    gradient_transformation = optax.chain(
        optax.GradientTransformation(lambda _: optax.EmptyState(), update_fn),
        optax.scale_by_schedule(learning_rate_fn),
        optax.scale(-1.))
    super(SGD, self).__init__(gradient_transformation)


class IteratedFGSM(SGD):
  """L-infinity normalized steps."""

  def __init__(self,
               learning_rate_fn: Union[float, int, optax.Schedule]):
    super(IteratedFGSM, self).__init__(learning_rate_fn, jnp.sign)


class Adam(StepOptimizer):
  """The Adam optimizer defined in https://arxiv.org/abs/1412.6980."""

  def __init__(
      self,
      learning_rate_fn: Union[float, int, optax.Schedule],
      normalize_fn: Optional[NormalizeFn] = None,
      beta1: float = .9,
      beta2: float = .999,
      epsilon: float = 1e-9):
    # Accept schedules, as well as scalar values.
    if isinstance(learning_rate_fn, (float, int)):
      lr = float(learning_rate_fn)
      learning_rate_fn = lambda _: lr
    # Normalization.
    def update_fn(updates, state, params=None):
      del params
      updates = jax.tree_util.tree_map(normalize_fn or (lambda x: x), updates)
      return updates, state
    gradient_transformation = optax.chain(
        optax.GradientTransformation(lambda _: optax.EmptyState(), update_fn),
        optax.scale_by_adam(b1=beta1, b2=beta2, eps=epsilon),
        optax.scale_by_schedule(learning_rate_fn),
        optax.scale(-1.))
    super(Adam, self).__init__(gradient_transformation)


class PGD:
  """Runs Project Gradient Descent (see https://arxiv.org/pdf/1706.06083)."""

  def __init__(self,
               optimizer: StepOptimizer,
               num_steps: int,
               initialize_fn: Optional[InitializeFn] = None,
               project_fn: Optional[ProjectFn] = None):
    self._optimizer = optimizer
    if initialize_fn is None:
      initialize_fn = lambda rng, x: x
    self._initialize_fn = initialize_fn
    if project_fn is None:
      project_fn = lambda x, origin_x: x
    self._project_fn = project_fn
    self._num_steps = num_steps

  def __call__(self,
               loss_fn: LossFn,
               rng: chex.PRNGKey,
               x: chex.Array) -> chex.Array:
    def _optimize(rng, x):
      """Optimizes loss_fn when keep_best is False."""
      def body_fn(_, inputs):
        opt_state, current_x = inputs
        current_x, _, opt_state = self._optimizer.minimize(current_x, opt_state)
        current_x = self._project_fn(current_x, x)
        return opt_state, current_x
      opt_state = self._optimizer.init(loss_fn, x)
      current_x = self._project_fn(self._initialize_fn(rng, x), x)
      _, current_x = jax.lax.fori_loop(0, self._num_steps, body_fn,
                                       (opt_state, current_x))
      return current_x
    return jax.lax.stop_gradient(_optimize(rng, x))


def linf_project_fn(epsilon: float, bounds: Tuple[float, float]) -> ProjectFn:
  def project_fn(x, origin_x):
    dx = jnp.clip(x - origin_x, -epsilon, epsilon)
    return jnp.clip(origin_x + dx, bounds[0], bounds[1])
  return project_fn


def linf_initialize_fn(epsilon: float) -> InitializeFn:
  def initialize_fn(rng, x):
    return x + jax.random.uniform(rng, x.shape, minval=-epsilon,
                                  maxval=epsilon).astype(x.dtype)
  return initialize_fn


def gradients_fn(loss_fn: LossFn,
                 x: chex.Array) -> Tuple[chex.Array, chex.Array]:
  """Returns the analytical gradient as computed by `jax.grad`."""
  @functools.partial(jax.grad, has_aux=True)
  def grad_reduced_loss_fn(x):
    loss = loss_fn(x)
    return jnp.sum(loss), loss
  return grad_reduced_loss_fn(x)


if __name__ == "__main__":
  import numpy as np

  # eval.py's PGD-40 attack with margin loss.
  epsilon = 8 / 255
  eval_attack = UntargetedAttack(
      PGD(
          Adam(learning_rate_fn=optax.piecewise_constant_schedule(
              init_value=.1,
              boundaries_and_scales={20: .1, 30: .01})),
          num_steps=40,
          initialize_fn=linf_initialize_fn(epsilon),
          project_fn=linf_project_fn(epsilon, bounds=(0., 1.))),
      loss_fn=untargeted_margin)

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda name, *a, **k: compiles.append(name)
      if name == "/jax/compilation_cache/compile_requests_use_cache" or
      name == "/jax/core/compile/backend_compile_duration" else None)

  def attack(w, rng, images, labels):
    logits_fn = lambda x: x.reshape(x.shape[0], -1) @ w
    return eval_attack(logits_fn, rng, images, labels)

  jitted_attack = jax.jit(attack)

  rs = np.random.default_rng(0)
  w = jnp.asarray(rs.normal(size=(8 * 8 * 3, 10)), jnp.float32)
  n_compiles = []
  for i in range(3):
    images = jnp.asarray(rs.uniform(size=(4, 8, 8, 3)), jnp.float32)
    labels = jnp.asarray(rs.integers(0, 10, size=(4,)))
    rng = jax.random.PRNGKey(i)
    before = len(compiles)
    adv = jitted_attack(w, rng, images, labels)
    n_compiles.append(len(compiles) - before)
    assert float(jnp.max(jnp.abs(adv - images))) <= epsilon + 1e-6
    assert float(adv.min()) >= 0. and float(adv.max()) <= 1.
    logits_fn = lambda x: x.reshape(x.shape[0], -1) @ w
    clean = untargeted_margin(logits_fn(images), labels)
    attacked = untargeted_margin(logits_fn(adv), labels)
    assert float(attacked.sum()) < float(clean.sum())
  print("compiles per call:", n_compiles)
  assert n_compiles[1] == 0 and n_compiles[2] == 0, n_compiles
  assert jitted_attack._cache_size() == 1

  # The same key gives the same adversarial images jitted and eager.
  eager = attack(w, jax.random.PRNGKey(2), images, labels)
  np.testing.assert_allclose(np.asarray(adv), np.asarray(eager), atol=1e-5)

  # Different keys give different random starts.
  init = linf_initialize_fn(epsilon)
  a = jax.jit(init)(jax.random.PRNGKey(0), images)
  b = jax.jit(init)(jax.random.PRNGKey(1), images)
  assert not np.allclose(np.asarray(a), np.asarray(b))
  print("ok")
