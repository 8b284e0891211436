# source: https://github.com/d2l-ai/d2l-en/blob/43157995531b962487f3b0aae05c023e4d377dcc/d2l/jax.py
#   (`Classifier.loss` "Defined in sec_dropout", and `DropoutMLP` from
#   chapter_multilayer-perceptrons/dropout.md at the same commit; fixed by
#   https://github.com/d2l-ai/d2l-en/pull/2405, "JAX: Fix burning in the same dropout rng")
# observed on jax 0.10.2 CPU: with flax 0.12.8, the jitted loss hands Dropout the same
#   `jax.random.PRNGKey(0)` at every step, so every training step drops the same units: two
#   calls with the same parameters give the same loss, to the bit. Stand-ins for the book's
#   framework: `Classifier` derives from `nn.Module` instead of `d2l.Module` and keeps only
#   `training_step` (without the plot) and `loss`; `d2l.reshape` is `jnp.reshape`; a small
#   batch of random images, a TrainState and a short training loop stand in for Fashion-MNIST
#   and `d2l.Trainer`. Added: the imports.
# gap: other
from functools import partial

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


class Classifier(nn.Module):
    """Defined in :numref:`sec_classification`"""
    def training_step(self, params, batch, state):
        # Here value is a tuple since models with BatchNorm layers require
        # the loss to return auxiliary data
        value, grads = jax.value_and_grad(
            self.loss, has_aux=True)(params, batch[:-1], batch[-1], state)
        l, _ = value
        return value, grads

    @partial(jax.jit, static_argnums=(0, 5))
    def loss(self, params, X, Y, state, averaged=True):
        """Defined in :numref:`sec_dropout`"""
        Y_hat = state.apply_fn({'params': params}, *X,
                               mutable=False,  # To be used later (e.g., batch norm)
                               rngs={'dropout': jax.random.PRNGKey(0)})  # expect: JIT502
        Y_hat = jnp.reshape(Y_hat, (-1, Y_hat.shape[-1]))
        Y = jnp.reshape(Y, (-1,))
        fn = optax.softmax_cross_entropy_with_integer_labels
        # The returned empty dictionary is a placeholder for auxiliary data,
        # which will be used later (e.g., for batch norm)
        return (fn(Y_hat, Y).mean(), {}) if averaged else (fn(Y_hat, Y), {})


class DropoutMLP(Classifier):
    num_hiddens_1: int
    num_hiddens_2: int
    num_outputs: int
    dropout_1: float
    dropout_2: float
    lr: float
    training: bool = True

    @nn.compact
    def __call__(self, X):
        x = nn.relu(nn.Dense(self.num_hiddens_1)(X.reshape((X.shape[0], -1))))
        x = nn.Dropout(self.dropout_1, deterministic=not self.training)(x)
        x = nn.relu(nn.Dense(self.num_hiddens_2)(x))
        x = nn.Dropout(self.dropout_2, deterministic=not self.training)(x)
        return nn.Dense(self.num_outputs)(x)


hparams = {'num_outputs':10, 'num_hiddens_1':256, 'num_hiddens_2':256,
           'dropout_1':0.5, 'dropout_2':0.5, 'lr':0.1}
model = DropoutMLP(**hparams)

data_key, params_key = jax.random.split(jax.random.PRNGKey(1))
X = jax.random.normal(data_key, (32, 28, 28))
Y = jnp.arange(32) % 10
batch = (X, Y)
params = model.init({'params': params_key}, X)['params']
state = train_state.TrainState.create(apply_fn=model.apply, params=params,
                                      tx=optax.sgd(hparams['lr']))

for _ in range(3):
    (l, _), grads = model.training_step(state.params, batch, state)
    state = state.apply_gradients(grads=grads)


if __name__ == "__main__":
    # observed: line 37 gives Dropout the same key at every step: the same parameters give the same loss each time, so no new mask is drawn
    l1, _ = model.loss(state.params, (X,), Y, state)
    l2, _ = model.loss(state.params, (X,), Y, state)
    assert float(l1) == float(l2)
    with_mask = model.apply({'params': state.params}, X, rngs={'dropout': jax.random.PRNGKey(3)})
    other_mask = model.apply({'params': state.params}, X, rngs={'dropout': jax.random.PRNGKey(5)})
    assert not bool((with_mask == other_mask).all())
