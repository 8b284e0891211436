# source: https://github.com/google-research/scenic/blob/a69dfe080ead7f96319be86eedd8f7506a299b3d/scenic/train_lib/train_utils.py
#   (accumulate_gradients after commit a69dfe0 "Remove the check in the grad accum since
#   it leads to `jax._src.errors.ConcretizationTypeError: Abstract tracer value encountered
#   where concrete value is expected`")
# observed on jax 0.10.2 CPU: with accum_steps > 1 inside the jitted train step, the
#   fori_loop body slices the microbatch with the traced loop counter, and the averaged
#   gradient equals the full-batch gradient. accumulate_gradients
#   is verbatim except `jax.tree_map`/`jax.tree_leaves`, now spelled `jax.tree.map`/
#   `jax.tree.leaves`. Stand-ins (scenic is not installed): TrainState holds only params,
#   compute_gradient_fn is jax.value_and_grad of a linear least-squares loss returning
#   (loss, (model_state, logits)), metrics_fn sums the squared error, and `jax.jit` of a
#   small train_step stands in for scenic's pmapped train step.
# gap: other
import functools
from typing import Any, Callable, Dict, Optional, Tuple

from absl import logging
import flax
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class TrainState:
  # stand-in for scenic's TrainState: only params are used here
  params: Any = None


def accumulate_gradients(
    compute_gradient_fn: Callable[
        [TrainState, Dict[str, jnp.ndarray], jnp.ndarray], Tuple[Any,
                                                                 jnp.ndarray]],
    metrics_fn: Callable[[jnp.ndarray, Dict[str, jnp.ndarray]],
                         Dict[str, Tuple[float, int]]], train_state: TrainState,
    batch: Dict[str, jnp.ndarray], dropout_rng: jnp.ndarray,
    accum_steps: Optional[int]
) -> Tuple[Optional[jnp.ndarray], jnp.ndarray, jnp.ndarray, Dict[str, Tuple[
    float, int]]]:
  """Accumulate gradients over multiple steps.

  This enables training with larger effective batch sizes.
  Note that currently, gradient accumulation is not supported when the
  `model_state` is used, e.g., for models that have batch normalization and
  store batch statistics in the `model_state`.

  Note that if `accum_steps` <= 1 or is None, then the gradient of a single step
  is simply returned.

  Args:
    compute_gradient_fn: Gradient function, e.g., `jax.value_and_grad(
      training_loss_fn, ...).
    metrics_fn: A metrics function that given logits and batch of data,
      calculates the metrics.
    train_state: An instance of TrainState that has the parameters of the model,
      state of the model, etc.
    batch: A single batch of data. The buffer of this argument can be donated to
      the computation.
    dropout_rng: JAX rng key used for dropout.
    accum_steps: Number of accumulating steps (number of micro batches). When
      set to None or =<1, no accumulation is done.

  Returns:
    A tuple of model_state (e.g., batch statistics),
      computed gradients, training loss, and calculated metrics.
  """
  params = train_state.params
  if accum_steps and accum_steps > 1:
    batch_size = next(iter(batch.values())).shape[0]
    microbatch_size = batch_size // accum_steps
    if batch_size % accum_steps != 0:
      raise ValueError(
          f'Bad accum_steps {accum_steps} for batch size {batch_size}')
    logging.info('Using microbatches: %d microbatches, %d size', accum_steps,
                 microbatch_size)

    def get_microbatch(batch: Dict[str, jnp.ndarray],
                       idx: int) -> Dict[str, jnp.ndarray]:
      """Fetch microbatch slice from the given batch."""
      return jax.tree.map(
          lambda x: x.reshape((-1, microbatch_size) + x.shape[1:])[idx], batch)

    def per_microbatch_compute_gradient_fn(
        loop_cnt: int, loop_state: Tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray,
                                         Dict[str, Tuple[float, int]]]
    ) -> Tuple[jnp.ndarray, jnp.ndarray, Dict[str, Tuple[float, int]],
               jnp.ndarray]:
      dropout_rng, grad_accum, train_loss_acc, metrics_acc = loop_state
      dropout_rng, sub_dropout_rng = jax.random.split(dropout_rng)
      mbatch = get_microbatch(batch, loop_cnt)
      (train_loss,
       (_, mlogits)), grad = compute_gradient_fn(params, mbatch,
                                                 sub_dropout_rng)
      metrics = metrics_fn(mlogits, mbatch)
      # Accumulate gradients and metrics.
      grad = jax.tree_util.tree_map(jnp.add, grad_accum, grad)
      metrics = jax.tree_util.tree_map(jnp.add, metrics, metrics_acc)
      train_loss = jax.tree_util.tree_map(jnp.add, train_loss, train_loss_acc)
      return dropout_rng, grad, train_loss, metrics

    # Initialize gradient accumulation loop state.
    dropout_rng, sub_dropout_rng = jax.random.split(dropout_rng)
    init_mbatch = get_microbatch(batch, 0)
    (init_train_loss,
     (model_state,
      init_logits)), grad_init = compute_gradient_fn(params, init_mbatch,
                                                     sub_dropout_rng)
    if jax.tree.leaves(model_state):
      # If the model_state is not empty.
      raise ValueError('Gradient accumulation is not supported when the '
                       'model_state is in used (e.g. models w/ batch norm).')

    metrics_init = metrics_fn(init_logits, init_mbatch)
    del init_logits, init_mbatch

    # Run gradient accumulation loop.
    loop_init = (dropout_rng, grad_init, init_train_loss, metrics_init)
    _, grad_acc, train_loss, metrics_acc = jax.lax.fori_loop(
        1, accum_steps, per_microbatch_compute_gradient_fn, loop_init)
    grad_acc = jax.tree_util.tree_map(lambda x: x / accum_steps, grad_acc)
    train_loss = jax.tree_util.tree_map(lambda x: x / accum_steps, train_loss)
    return model_state, grad_acc, train_loss, metrics_acc
  else:
    (train_loss, (model_state,
                  logits)), grad = compute_gradient_fn(params, batch,
                                                       dropout_rng)
    metrics = metrics_fn(logits, batch)
    return model_state, grad, train_loss, metrics


def compute_gradient_fn(params, batch, dropout_rng):
  # stand-in: value_and_grad of a least-squares loss with (model_state, logits) aux
  def loss_fn(params):
    logits = batch['inputs'] @ params
    return jnp.mean((logits - batch['label']) ** 2), ({}, logits)
  return jax.value_and_grad(loss_fn, has_aux=True)(params)


def metrics_fn(logits, batch):
  # stand-in metrics: (sum of squared errors, count)
  return {'sq_err': (jnp.sum((logits - batch['label']) ** 2), logits.shape[0])}


@functools.partial(jax.jit, static_argnums=(3,))
def train_step(train_state, batch, dropout_rng, accum_steps):
  return accumulate_gradients(compute_gradient_fn, metrics_fn, train_state, batch,
                              dropout_rng, accum_steps)


if __name__ == "__main__":
  batch = {'inputs': jnp.ones((8, 3)), 'label': jnp.zeros((8,))}
  state = TrainState(params=jnp.ones((3,)))
  batch = {'inputs': jnp.arange(24.0).reshape(8, 3), 'label': jnp.arange(8.0)}
  _, grad, loss, metrics = train_step(state, batch, jax.random.key(0), 4)
  _, full_grad, full_loss, _ = train_step(state, batch, jax.random.key(0), None)
  assert jnp.allclose(grad, full_grad, rtol=1e-5), (grad, full_grad)
  assert jnp.allclose(loss, full_loss, rtol=1e-5), (loss, full_loss)
