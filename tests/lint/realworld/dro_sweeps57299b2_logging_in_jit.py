# source: https://github.com/kdbanman/dro_sweeps/blob/57299b2deaefbcfb6a9935d068afb0683f5d98f3/src/dro_sweeps/dro.py
# observed on jax 0.10.2 CPU: 40 dro_update calls that all have cvar_alpha < 1/batch_size emit the warning once (at trace time), not per call
# observed: line 60 logging.warning inside the jitted cvar_batch_weights fires only while tracing: 1 warning for 40 under-resolved batches
# gap: other
# (added: imports of TrainingResults and linear_outputs replaced by the repository's own definitions from
#  src/dro_sweeps/training_results.py and src/dro_sweeps/data_generation.py at the same commit;
#  the __main__ block with a small synthetic regression set, batch size 8 and cvar_alpha 1e-4 as in regression_example.py)
import logging
import math
from functools import partial

import jax.numpy as jnp
from jax import jit, lax, random, value_and_grad


# --- src/dro_sweeps/data_generation.py (same commit) ---
def linear_outputs(inputs, weights):
    """
    Returns a (size, 1)-shaped array of (noiseless) outputs.
    Each row is the dot product of the corresponding x row and weights.
    """
    size = inputs.shape[0]
    return jnp.dot(inputs, weights).reshape((size, 1))


# --- src/dro_sweeps/training_results.py (same commit) ---
class TrainingResults:
    def __init__(self, logging_period, init_weights, logger):
        self.averaged_weights = init_weights
        self.logging_period = logging_period

        self.logger = logger

    def record_step(self, step, loss, weights):
        past_weights_contribution = (1 - 2 / (step + 2)) * self.averaged_weights
        new_weights_contribution = 2 / (step + 2) * weights
        self.averaged_weights = past_weights_contribution + new_weights_contribution

        if self.logger is not None and step % self.logging_period == 0:
            self.logger.log({
                'step': step,
                'loss': loss,
                'weights_norm': jnp.linalg.norm(weights),
                'averaged_weights_norm': jnp.linalg.norm(self.averaged_weights),
            })


# --- src/dro_sweeps/dro.py ---
@partial(jit, static_argnames='cvar_alpha')
def cvar_batch_weights(cvar_alpha, losses):
    batch_size = losses.shape[0]

    if cvar_alpha <= 0 or cvar_alpha > 1.0:
        raise Exception(f'cvar_alpha must be in (0, 1.0]')
    elif cvar_alpha == 1.0:
        batch_weights = jnp.ones_like(losses) / batch_size
    else:  # cvar_alpha in open interval (0, 1)
        if cvar_alpha < 1 / batch_size:
            # Indexing logic below already handles this case implicitly, but we should log to the user when it happens.
            logging.warning(f'Batch size n={batch_size} can express a minimum cvar_alpha of ' +  # expect: JIT203
                            f'1/n={1 / batch_size}, but {cvar_alpha} requested.  Defaulting to 1/n={1 / batch_size}.')

        cutoff_idx = math.floor(cvar_alpha * batch_size)
        surplus = 1.0 - cutoff_idx / (cvar_alpha * batch_size)

        batch_weights = jnp.zeros_like(losses, dtype='float32')
        sorted_indices = jnp.flip(jnp.argsort(losses, axis=0), axis=0)

        update_indices = lax.dynamic_slice(sorted_indices, (0, 0), (cutoff_idx, 1))
        batch_weights = batch_weights.at[update_indices].set(1.0 / (cvar_alpha * batch_size))
        batch_weights = batch_weights.at[sorted_indices[cutoff_idx]].set(surplus)

    return batch_weights


def shuffle_data(key, inputs, outputs):
    key, subkey = random.split(key)

    # Permute X, Y from the same key for identical random ordering
    inputs = random.permutation(subkey, inputs, axis=0, independent=False)
    outputs = random.permutation(subkey, outputs, axis=0, independent=False)

    return inputs, outputs


def squared_err_loss(predictions, outputs):
    return jnp.square(outputs - predictions)


def weighted_loss(inputs, outputs, weights, predict_fn, loss_fn, batch_weights):
    predictions = predict_fn(inputs, weights)
    losses = loss_fn(predictions, outputs)
    return jnp.sum(losses * batch_weights)


@partial(jit, static_argnames=('predict_fn', 'loss_fn', 'step_size', 'cvar_alpha'))
def dro_update(inputs, outputs, weights, predict_fn, loss_fn, step_size, cvar_alpha):
    predictions = predict_fn(inputs, weights)
    losses = loss_fn(predictions, outputs)
    batch_weights = cvar_batch_weights(cvar_alpha, losses)

    loss, grads = value_and_grad(weighted_loss, argnums=2)(inputs, outputs, weights, predict_fn, loss_fn, batch_weights)

    return weights - step_size * grads, loss


def batches(inputs, batch_size):
    num_samples = inputs.shape[0]
    num_batches = num_samples // batch_size

    inputs_head = inputs[:num_batches * batch_size]

    inputs_batches = inputs_head.reshape((num_batches, batch_size, inputs_head.shape[1]))

    for batch in inputs_batches:
        yield batch

    if num_samples % batch_size != 0:
        final_batch = inputs[-(num_samples % batch_size):]
        yield final_batch


def train_averaged_dro(key, inputs, outputs, init_weights, predict_fn, loss_fn, step_size, batch_size, cvar_alpha, steps, log_period, results_logger):
    results = TrainingResults(log_period, init_weights, results_logger)
    step = 0
    weights = init_weights
    while step < steps:
        key, subkey = random.split(key)
        inputs, outputs = shuffle_data(subkey, inputs, outputs)
        inputs_batches = batches(inputs, batch_size)
        outputs_batches = batches(outputs, batch_size)
        for input_batch, output_batch in zip(inputs_batches, outputs_batches):
            new_weights, loss = dro_update(input_batch, output_batch, weights, predict_fn, loss_fn, step_size, cvar_alpha)

            if jnp.any(jnp.isnan(new_weights)):
                logging.warning(f'NaN weights encountered from old weights: {weights}')
                step = steps
                break
            else:
                weights = new_weights

            results.record_step(step, loss, weights)

            step += 1

            if step >= steps:
                break
    return results


if __name__ == "__main__":
    class _Count(logging.Handler):
        def __init__(self):
            super().__init__()
            self.n = 0

        def emit(self, record):
            if 'can express a minimum cvar_alpha' in record.getMessage():
                self.n += 1

    counter = _Count()
    logging.getLogger().addHandler(counter)

    key = random.PRNGKey(42069)
    k1, k2, key = random.split(key, 3)
    x = random.normal(k1, (96, 1))
    inputs = jnp.hstack((x, jnp.ones((96, 1))))
    outputs = inputs @ jnp.array([[1.5], [0.0]]) + 0.01 * random.normal(k2, (96, 1))

    batch_size, cvar_alpha, steps = 8, 1e-4, 40   # every batch has cvar_alpha < 1/batch_size
    train_averaged_dro(key, inputs, outputs, jnp.array((0.1, 0.1)).reshape((2, 1)),
                       linear_outputs, squared_err_loss, 0.005, batch_size, cvar_alpha, steps, 10, None)
    print(f"{steps} dro_update calls with cvar_alpha < 1/n, warnings emitted: {counter.n}")
    assert counter.n == 1, counter.n
