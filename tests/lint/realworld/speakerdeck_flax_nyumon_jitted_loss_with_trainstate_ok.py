# source: https://speakerdeck.com/enakai00/flax-ru-men
#   (a talk's slides, "Flax 入門": slide 14, the loss function and the training step, each
#   under its own jax.jit)
# observed on jax 0.10.2 CPU: runs clean: loss_fn is jitted and then differentiated by
#   jax.value_and_grad inside the jitted train_step, with the TrainState passed to it as
#   an ordinary argument (a pytree whose apply_fn and tx are static fields); the loss
#   decreases over the steps, and train_step compiles twice in all, not per step (the
#   first call sees the Python int `step` that TrainState.create stores, later calls the
#   int32 array apply_gradients returns). The slide shows only these two
#   functions; added: a stand-in model with the `get_logits` switch the slide calls
#   (a dense layer whose output is softmaxed unless get_logits is set), the TrainState,
#   data, and the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


class SingleLayerNN(nn.Module):
    @nn.compact
    def __call__(self, x, get_logits=False):
        x = nn.Dense(features=10)(x)
        if get_logits:
            return x
        return nn.softmax(x)


@jax.jit
def loss_fn(params, state, inputs, labels):
    logits = state.apply_fn({'params': params},
                            inputs, get_logits=True)
    loss = optax.softmax_cross_entropy(logits, labels).mean()
    return loss

@jax.jit
def train_step(state, inputs, labels):
    loss, grads = jax.value_and_grad(loss_fn)(
        state.params, state, inputs, labels)
    new_state = state.apply_gradients(grads=grads)
    return new_state, loss


if __name__ == "__main__":
    model = SingleLayerNN()
    k_init, k_x = jax.random.split(jax.random.key(0))
    inputs = jax.random.normal(k_x, (32, 784))
    labels = jax.nn.one_hot(jnp.arange(32) % 10, 10)
    params = model.init(k_init, inputs)['params']
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=optax.adam(learning_rate=0.001))
    losses = []
    for _ in range(5):
        state, loss = train_step(state, inputs, labels)
        losses.append(float(loss))
    assert losses[2] < losses[0], losses
    assert train_step._cache_size() == 2
