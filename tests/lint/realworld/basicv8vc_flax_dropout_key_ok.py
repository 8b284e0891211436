# source: https://github.com/basicv8vc/jax-tutorials-for-pytorchers/blob/ad6e6b6d419038eb8a02c046c8559f8d5352d832/flax-dropout-batchnorm-example.ipynb
# observed on jax 0.10.2 CPU: runs clean; each step splits the carried `key` and passes the fresh dropout_key to the jitted, donating train step (the same author's single-device version of the pmap notebook)
# gap: flow-sensitive
# (code cells 0, 2, 3, 12-23 of the notebook without the demo apply cell; added: random stand-in batches instead of the torchvision MNIST loaders,
#  the training cell wrapped in `def train(state, key, train_loader, eval_loader)` with 1 epoch)
import jax
from jax import numpy as jnp
from jax import grad, jit, value_and_grad
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
train_loader = [(_rs.rand(16, 784).astype(np.float32),
                 _rs.randint(0, 10, 16)) for _ in range(3)]
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
    new_state = state.apply_gradients(grads=grads, batch_stats=new_state["batch_stats"])
    return new_state, loss

jit_train_step = jit(train_step, donate_argnums=(0,))  # donate_argnums is used for buffer reuse, in which case the buffers for input and output states are reused


@jax.jit
def apply_model(state, x):
    """Computes gradients and loss for a single batch."""

    logits = state.apply_fn({"params":state.params, "batch_stats": state.batch_stats},
                            x, train=False)
    return jnp.argmax(logits, -1)


def eval_model(state, loader):
    total_acc = 0.
    total_num = 0.
    for x, y in loader:
        y_pred = apply_model(state, x)
        total_num += len(x)
        total_acc += jnp.sum(y_pred == y)
    return total_acc / total_num


def train(state, key, train_loader, eval_loader):
    for epoch in range(1):
        for idx, (x, y) in enumerate(train_loader):
            key, dropout_key = jax.random.split(key)
            state, loss = jit_train_step(state, x, y, dropout_key)
            if idx % 100 == 0:  # evaluation
                train_acc = eval_model(state, train_loader)
                eval_acc = eval_model(state, eval_loader)
                print("Epoch {} - batch_idx {}, loss {}, Training set acc {}, eval set accuracy {}".format(
                  epoch, idx, loss, train_acc, eval_acc))
    return state, key


if __name__ == "__main__":
    seen = []
    _orig_step = jit_train_step

    def _spy(state, x, y, dropout_key):
        seen.append(np.asarray(dropout_key).copy())
        return _orig_step(state, x, y, dropout_key)

    jit_train_step = _spy
    state, key = train(state, key, train_loader, eval_loader)
    assert len({tuple(s.tolist()) for s in seen}) == len(seen) == 3
    print("fresh dropout key at each of", len(seen), "steps")
