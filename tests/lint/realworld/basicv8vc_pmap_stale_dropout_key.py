# source: https://github.com/basicv8vc/jax-tutorials-for-pytorchers/blob/b8e3c08c04737985439a5e527ba76ea64ed94d74/pmap-mlp-mnist-example.ipynb
# observed on jax 0.10.2 CPU: every training step splits the stale `drop_key` (already consumed by model.init) instead of the fresh `dropout_key`, so p_train_step gets the same per-device dropout keys, and the same dropout masks, at every step
# observed: line 147 the split of the stale drop_key gives p_train_step identical dropout keys at every step (the __main__ spy compares them)
# gap: flow-sensitive
# (code cells 0, 2, 3, 8-19 of the notebook; added: random stand-in batches instead of the torchvision MNIST loaders,
#  the training cell wrapped in `def train(state, key, train_loader, eval_loader)` with 1 epoch;
#  renamed APIs: jax.tree_map -> jax.tree.map, jax.device_put_replicated -> flax.jax_utils.replicate (the notebook's own alternative))
import jax
from jax import numpy as jnp
from jax import grad, pmap, value_and_grad
import flax
from flax import linen as nn
from typing import Sequence, Any
import numpy as np

# Create PRNGKey (PRNG State)
key = jax.random.PRNGKey(0)


class MLP(nn.Module):

    def setup(self):
        self.layer1 = nn.Dense(features=512)
        self.dropout1 = nn.Dropout(rate=0.3)
        self.norm1 = nn.BatchNorm()

        self.layer2 = nn.Dense(features=512)
        self.dropout2 = nn.Dropout(rate=0.4)
        self.norm2 = nn.BatchNorm()

        self.layer3 = nn.Dense(features=10)


    def __call__(self, x, train:bool = True):
        x = nn.relu(self.layer1(x))
        x = self.dropout1(x, deterministic=not train)
        x = self.norm1(x, use_running_average=not train)
        x = nn.relu(self.layer2(x))
        x = self.dropout2(x, deterministic=not train)
        x = self.norm2(x, use_running_average=not train)

        x = self.layer3(x)

        return x


# Create model
model = MLP()

# Using `init` and dummy_x to create model parameters
key, init_key = jax.random.split(key)
dummy_x = jax.random.uniform(init_key, (784, ))

key, init_key, drop_key = jax.random.split(key, 3)

variables = model.init({"params": init_key, "dropout": drop_key}, dummy_x, train=True)

# stand-in for the MNIST NumpyLoaders: a few random batches of flattened images
_rs = np.random.RandomState(0)
train_loader = [(_rs.rand(16 * jax.local_device_count(), 784).astype(np.float32),
                 _rs.randint(0, 10, 16 * jax.local_device_count())) for _ in range(3)]
eval_loader = train_loader[:1]

import optax

lr = 1e-3
lr_decay_fn = optax.linear_schedule(
        init_value=lr,
        end_value=1e-5,
        transition_steps=200,
)

optimizer = optax.adam(
            learning_rate=lr_decay_fn,
)

from flax.training import train_state

class CustomTrainState(train_state.TrainState):
    batch_stats: flax.core.FrozenDict[str, Any]

state = CustomTrainState.create(
    apply_fn=model.apply,
    params=variables['params'],
    tx=optimizer,
    batch_stats=variables['batch_stats'],
)


def train_step(state, x, y, dropout_key):
    """Computes gradients and loss for a single batch."""
    def loss_fn(params):
        logits, new_state = state.apply_fn({"params": params, "batch_stats": state.batch_stats},
                                           x, train=True, rngs={"dropout": dropout_key}, mutable=["batch_stats"])

        one_hot = jax.nn.one_hot(y, 10)
        loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot))
        return loss, new_state

    grad_fn = value_and_grad(loss_fn, has_aux=True)  # `value_and_grad` return the loss while performing a grad
    (loss, new_state), grads = grad_fn(state.params)
    grads = jax.lax.pmean(grads, "batch")  # pmean calculates the mean of gradients on all devices
    loss = jax.lax.pmean(loss, "batch")
    batch_stats = jax.lax.pmean(new_state["batch_stats"], "batch")
    new_state = state.apply_gradients(grads=grads, batch_stats=batch_stats)

    return new_state, loss

p_train_step = pmap(train_step, "batch", donate_argnums=(0,))  # donate_argnums is used for buffer reuse, in which case the buffers for input and output states are reused


def apply_model(state, x):
    """Computes gradients and loss for a single batch."""

    logits = state.apply_fn({"params":state.params, "batch_stats": state.batch_stats},
                            x, train=False)
    return jnp.argmax(logits, -1)


def eval_model(state, loader):
    total_acc = 0.
    total_num = 0.
    for xs, ys in loader:
        xs = jax.tree.map(
            lambda x: x.reshape((jax.local_device_count(), -1) + x.shape[1:]), xs)
        ys = jax.tree.map(
            lambda x: x.reshape((jax.local_device_count(), -1) + x.shape[1:]), ys)
        y_pred = pmap(apply_model)(state, xs)  # There is no cross-device communication operation during validation, so there is no need to set axis_name
        total_num += ys.size
        total_acc += jnp.sum(y_pred == ys)
    return total_acc / total_num


devices = jax.local_devices()
state = flax.jax_utils.replicate(state, devices)


def train(state, key, train_loader, eval_loader):
    for epoch in range(1):
        for idx, (xs, ys) in enumerate(train_loader):
            xs = jax.tree.map(
                lambda x: x.reshape((jax.local_device_count(), -1) + x.shape[1:]), xs)
            ys = jax.tree.map(
                lambda x: x.reshape((jax.local_device_count(), -1) + x.shape[1:]), ys)

            key, dropout_key = jax.random.split(key)
            dropout_key = jax.random.split(drop_key, jax.local_device_count())  # expect: JIT502
            state, loss = p_train_step(state, xs, ys, dropout_key)

            if idx % 100 == 0:  # evaluation
                train_acc = eval_model(state, train_loader)
                eval_acc = eval_model(state, eval_loader)
                print("Epoch {} - batch_idx {}, loss {}, Training set acc {}, eval set accuracy {}".format(
                  epoch, idx, jax.tree.map(lambda x: x[0], loss), train_acc, eval_acc))
    return state, key


if __name__ == "__main__":
    seen = []
    _orig_step = p_train_step

    def _spy(state, xs, ys, dropout_key):
        seen.append(np.asarray(dropout_key).copy())
        return _orig_step(state, xs, ys, dropout_key)

    p_train_step = _spy
    train(state, key, train_loader, eval_loader)
    assert len(seen) == 3
    assert all(np.array_equal(seen[0], s) for s in seen[1:]), seen
    print("dropout keys identical at all", len(seen), "steps:", seen[0].tolist())
