# source: https://github.com/google/flax/issues/1218 (the reporter's train.py at the commit
#   before the fix the maintainer suggested,
#   https://github.com/Numeri/non-linear-transformer/blob/7e1dbca242eda4f753aea02e2651c8c7bdc668ea/train.py:
#   make_batched_loss and the training loop, without the logging and checkpointing;
#   stand-ins replace what lives in the repository's other modules and in flax.optim, which
#   no longer exists: `hypers`, a one-layer `model`, `max_decode_logits` as a softmax of the
#   model's output, `get_batches` yielding random token batches, and an SGD `optimizer` with
#   `.target` and `.apply_gradient`)
# observed on jax 0.10.2 CPU: every batch jits a new `loss` closure, so every batch compiles
#   again (the maintainer: "you end up calling jit each iteration").
# gap: per-call-recompile
import types

import jax
from flax import linen as nn
from jax import numpy as np, random

hypers = types.SimpleNamespace(vocabulary_size=16, seq_length=8, batch_size=4, epochs=1,
                               learning_rate=0.1)

model = nn.Embed(hypers.vocabulary_size, hypers.vocabulary_size)


def max_decode_logits(hypers, key, model, params, source):
    return jax.nn.softmax(model.apply(params, source))


def get_batches(hypers, key, split):
    for k in random.split(key, 3):
        batch = random.randint(k, (2, hypers.batch_size, hypers.seq_length), 1,
                               hypers.vocabulary_size)
        yield batch[0], batch[1]


class SGD:
    def __init__(self, target):
        self.target = target

    def apply_gradient(self, grad):
        return SGD(jax.tree.map(lambda p, g: p - hypers.learning_rate * g, self.target, grad))


key = random.PRNGKey(11)
params = model.init(key, np.zeros((hypers.seq_length,), dtype=int))

def make_batched_loss(key, source_batch, target_batch):
    def loss(params):
        def cross_entropy_sentence(source, target):
            """Cross entropy loss for a single source-target sentence pair"""
            logits = max_decode_logits(hypers, key, model, params, source)
            target_logits = jax.nn.one_hot(target, hypers.vocabulary_size, dtype='float32')
            weights = np.where(logits.sum(axis=-1) > 0, 1, 0)

            cross_entropies = -weights*np.sum(target_logits * np.log(logits), axis=-1)

            return np.mean(cross_entropies, axis=-1)

        sentence_losses = jax.vmap(cross_entropy_sentence)(source_batch, target_batch)
        return np.mean(sentence_losses)
    return jax.jit(loss)  # expect: JIT301

# Set up optimizer
optimizer = SGD(params)


# Training loop
for epoch in range(hypers.epochs):
    # Get training batches
    key, key_ = random.split(key)
    training_batches = get_batches(hypers, key_, 'validation')
    
    for batch_num, (source_batch, target_batch) in enumerate(training_batches):
        key, key_ = random.split(key)
        loss = make_batched_loss(key_, source_batch, target_batch)
        loss_val_grad = jax.value_and_grad(loss)

        loss_val, grad = loss_val_grad(optimizer.target)
        optimizer = optimizer.apply_gradient(grad)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for source_batch, target_batch in get_batches(hypers, random.PRNGKey(2), 'validation'):
        loss = make_batched_loss(key_, source_batch, target_batch)
        jax.value_and_grad(loss)(optimizer.target)
    # observed: line 60 jits a new closure per batch: three more batches of the same shapes compile three more times
    assert len(compiles) >= 3, compiles
