# source: https://github.com/OsaRobots/lbd/blob/4a479a12ff5e9b04831cc8f185c4c845d9007b89/src/models/main_mlp.py
# observed on jax 0.10.2 CPU: runs clean. train_step and eval_step are nnx.jit functions that update an nnx.MultiMetric
#   in place (the metric is an nnx object passed in, so nnx.jit carries its new state out of the trace); the metrics are
#   computed, recorded and reset in the Python loop, outside the jitted steps, every `eval_every` steps, and the
#   recorded values are concrete arrays that change from one evaluation to the next.
#   Changed: `nnx.Optimizer(model, tx)` is spelled `nnx.ModelAndOptimizer(model, tx)` (flax 0.11 renamed the
#   optimizer that keeps `optimizer.update(grads)`). The tf.data pipeline (tf.data.Dataset.load of the project's
#   saved dataset, shuffle/batch/take, `.as_numpy_iterator()`) is replaced by the same batching over 256 random inputs
#   with one-hot targets in NumPy (`_batches`, lists of dicts); train_steps is 30 and eval_every 10 (500 and 5).
#   Dropped: MLPModel.fit (an unfinished tf.data method) and the interactive matplotlib plot of the metrics.
#   Added: the checks at the end of __main__.
# gap: exemption-vs-JAX
from flax import nnx
import jax
import jax.numpy as jnp
from typing import Callable
import optax
import numpy as np

# TODO add param for dropout rate
class MLP(nnx.Module):
    def __init__(self, 
                 hidden_dims, 
                 rngs: nnx.Rngs, 
                 activation: Callable = nnx.relu):
      
      self.mlp = nnx.Sequential(
         nnx.Linear(hidden_dims, hidden_dims, rngs=rngs),
         activation,
         nnx.Dropout(rate=.1, rngs=rngs),
         nnx.Linear(hidden_dims, hidden_dims, rngs=rngs),
         nnx.Dropout(rate=.1, rngs=rngs)
      )

    def __call__(self, x):
        x = self.mlp(x)
        return x

class MLPModel(nnx.Module):
    def __init__(self, 
                 in_dims, 
                 hidden_dims, 
                 out_dims, 
                 num_mlps, 
                 rngs: nnx.Rngs, 
                 activation: Callable = nnx.relu):
        
        self.hidden_dims = hidden_dims
        self.initial_linear = nnx.Linear(in_dims, hidden_dims, rngs=rngs)
        self.activation = activation 
        self.out_layer = nnx.Linear(hidden_dims, out_dims, rngs=rngs)
        keys = jax.random.split(jax.random.key(0), num_mlps)
        self.models = self.create_models(keys)
    
    # TODO more flexible way of writing this? 
    @nnx.vmap(in_axes=(None, 0), out_axes=0)
    def create_models(self, key: jax.Array):
        return MLP(hidden_dims=self.hidden_dims, rngs=nnx.Rngs(key))

    def __call__(self, x):
        @nnx.scan(in_axes=(0, nnx.Carry), out_axes=nnx.Carry)
        def forward(model: MLP, x):
            x = model(x)
            return x 
        z = self.activation(self.initial_linear(x))
        z = forward(self.models, z)
        z_out = self.out_layer(z)
        return z_out


def _batches(inputs, targets, batch_size, steps, seed):
    # stand-in for the tf.data pipeline: shuffled, batched, drop_remainder, as NumPy dicts
    rs = np.random.RandomState(seed)
    n = 0
    while n < steps:
        perm = rs.permutation(len(inputs))
        for i in range(0, len(inputs) - batch_size + 1, batch_size):
            if n == steps:
                return
            idx = perm[i:i + batch_size]
            yield {'inputs': inputs[idx], 'targets': targets[idx]}
            n += 1


if __name__ == '__main__':
    rngs = nnx.Rngs(0)
    in_dims = 41
    hidden_dims = 10
    out_dims = 20
    num_mlps = 1
    learning_rate = 0.005
    momentum = 0.9
    train_ratio = .75
    batch_size = 32 
    train_steps = 30
    eval_every = 10
    shuffle_buffer_size = 1024

    model = MLPModel(in_dims, hidden_dims, out_dims, num_mlps, rngs)
    optimizer = nnx.ModelAndOptimizer(model, optax.adamw(learning_rate, momentum))

    metrics = nnx.MultiMetric(
        accuracy=nnx.metrics.Accuracy(),
        loss=nnx.metrics.Average('loss'),
    )

    def loss_fn(model: MLPModel, batch):
        logits = model(batch['inputs'])
        loss = optax.softmax_cross_entropy(
            logits=logits, labels=batch['targets']
        ).mean()
        return loss, logits

    @nnx.jit
    def train_step(model: MLPModel,
                   optimizer: nnx.Optimizer,
                   metrics: nnx.MultiMetric,
                   batch):
        
        grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
        (loss, logits), grads = grad_fn(model, batch)

        # convert one-hot to class indices for the metric
        # TODO: dtype here?
        labels_idx = jnp.argmax(batch['targets'], axis=-1)
        # jax.debug.print("labels look like {labels_idx}", labels_idx=labels_idx)
        metrics.update(loss=loss,
                       logits=logits,
                       labels=labels_idx)      
        
        optimizer.update(grads)

    @nnx.jit
    def eval_step(model: MLPModel, metrics: nnx.MultiMetric, batch):
        loss, logits = loss_fn(model, batch)
        labels_idx = jnp.argmax(batch['targets'], axis=-1)
        metrics.update(loss=loss, logits=logits, labels=labels_idx)  # In-place updates.

    metrics_history = {
        'train_loss': [],
        'train_accuracy': [],
        'test_loss': [],
        'test_accuracy': [],
    }
    
    # stand-in data: 256 points, 41 input features, one-hot targets over 20 actions
    rs = np.random.RandomState(0)
    all_inputs = rs.randn(256, in_dims).astype(np.float32)
    all_targets = np.eye(out_dims, dtype=np.float32)[rs.randint(0, out_dims, 256)]
    num_data_points = len(all_inputs)
    num_train_points = int(num_data_points * train_ratio)
    train_ds = list(_batches(all_inputs[:num_train_points], all_targets[:num_train_points], batch_size, train_steps, 1))
    test_ds = list(_batches(all_inputs[num_train_points:], all_targets[num_train_points:], batch_size, 2, 2))

    for step, batch in enumerate(train_ds):
        train_step(model, optimizer, metrics, batch)

        if step > 0 and (step % eval_every == 0 or step == train_steps - 1):  # One training epoch has passed.
        # Log the training metrics.
            for metric, value in metrics.compute().items():  # Compute the metrics.
                metrics_history[f'train_{metric}'].append(value)  # Record the metrics.
            metrics.reset()  # Reset the metrics for the test set.

        # Compute the metrics on the test set after each training epoch.
            for test_batch in test_ds:
                eval_step(model, metrics, test_batch)

        # Log the test metrics.
            for metric, value in metrics.compute().items():
                metrics_history[f'test_{metric}'].append(value)
            metrics.reset()  # Reset the metrics for the next training epoch.

    # added: the metrics were accumulated under jit and read outside it
    assert len(metrics_history['train_loss']) == 3 and len(metrics_history['test_loss']) == 3
    for name, values in metrics_history.items():
        assert all(not isinstance(v, jax.core.Tracer) and np.isfinite(float(v)) for v in values), name
    assert len(set(float(v) for v in metrics_history['train_loss'])) == 3
    print({k: [round(float(v), 4) for v in vs] for k, vs in metrics_history.items()})
