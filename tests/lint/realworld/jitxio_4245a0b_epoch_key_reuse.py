# source: https://github.com/Artur-Galstyan/jitx.io/blob/4245a0b20035877d63a731a4fa747143ff651880/src/pages/posts/ml-deployment.md (the "Model" and "Training" code of the blog post "Deploy your ML Model with Celery, RabbitMQ and FastAPI")
# observed on jax 0.10.2 CPU: runs without error; every epoch replays the same dropout keys, because `train` splits the one `key` locally and never hands the advanced key back, and inside one batch every example gets the same dropout mask, because the unsplit key is closed over by `ft.partial` and broadcast by `eqx.filter_vmap`
# gap: flow-sensitive
# observed: line 87 every epoch gets the same `key`, so epoch 1 replays the dropout keys of epoch 0 (compared in __main__)
# observed: line 102 the one closed-over key is broadcast by filter_vmap: identical images in one batch give identical dropout outputs (compared in __main__)
# added: imports of jax/numpy/Optional in one file; `Model` (model/model.py of the post) inlined; `ic = print` stands in for icecream;
#   a small random data set of numpy batches (`_loader`) stands in for torchvision MNIST + torch DataLoader/random_split;
#   `eqx.tree_serialise_leaves("../models/model.eqx", model)` removed (writes outside the corpus); the `__main__` block is the harness.
import functools as ft
import time
from typing import Optional

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random
import numpy as np
import optax
from jaxtyping import Array, PyTree, PRNGKeyArray, Float, Int

ic = print  # stand-in for `from icecream import ic`


class Model(eqx.Module):
    conv: eqx.nn.Conv2d
    mlp: eqx.nn.MLP
    max_pool: eqx.nn.MaxPool2d

    dropout: eqx.nn.Dropout

    def __init__(self):
        key, *subkeys = jax.random.split(jax.random.PRNGKey(33), 6)
        self.conv = eqx.nn.Conv2d(
            in_channels=1, out_channels=3, kernel_size=2, key=subkeys[1]
        )
        self.max_pool = eqx.nn.MaxPool2d(kernel_size=2)
        self.mlp = eqx.nn.MLP(
            in_size=2028, out_size=10, depth=3, width_size=128, key=subkeys[0]
        )
        self.dropout = eqx.nn.Dropout()

    def __call__(self, x: Array, key: Optional[PRNGKeyArray]):
        inference = True if key is None else False
        x = self.conv(x)
        x = self.max_pool(x)
        x = self.dropout(x, key=key, inference=inference)
        x = x.ravel()
        x = self.mlp(x)
        x = jax.nn.softmax(x)
        return x


class _Batch:
    # stand-in for a torch tensor: only `.numpy()` and `len()` are used
    def __init__(self, a):
        self.a = a

    def numpy(self):
        return self.a

    def __len__(self):
        return len(self.a)


def _loader(seed, n_batches=2, batch_size=8):
    rng = np.random.default_rng(seed)
    return [
        (
            _Batch(rng.normal(size=(batch_size, 1, 28, 28)).astype(np.float32)),
            _Batch(rng.integers(0, 10, size=batch_size)),
        )
        for _ in range(n_batches)
    ]


def main():
    # stand-in for the MNIST download, random_split and DataLoaders
    trainloader = _loader(0)
    validationloader = _loader(1)

    model = Model()
    optim = optax.adamw(learning_rate=0.001)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))
    key = jax.random.key(45)
    start_time = time.time()
    for epoch in range(5):
        model = train(model, opt_state, optim, trainloader, key)  # expect: JIT502
        eval_loss = evaluate(model, validationloader)
        ic(epoch, eval_loss)
    end_time = time.time()

    ic("training took " + str(end_time - start_time))


def loss_fn(
    model: PyTree,
    x: Float[Array, "batch 1 28 28"],
    y: Int[Array, " batch"],
    key: PRNGKeyArray,
) -> Float[Array, ""]:
    partial_model = ft.partial(model, key=key)
    pred_y = eqx.filter_vmap(partial_model)(x)  # expect: JIT502

    loss = optax.softmax_cross_entropy(pred_y, y)

    return jnp.mean(loss)


@eqx.filter_jit
def step(
    model: PyTree,
    optim: optax.GradientTransformation,
    opt_state: PyTree,
    x: Array,
    y: Array,
    key: PRNGKeyArray,
):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x, y, key)
    updates, opt_state = optim.update(grads, opt_state, model)
    model = eqx.apply_updates(model, updates)

    return model, opt_state, loss


def one_hot_encode(labels, num_classes=10):
    return jnp.eye(num_classes)[labels]


def evaluate(model: PyTree, eval_dataloader):
    loss = 0
    accuracy = 0
    counter = 0
    acc_fn = lambda a, b: jnp.argmax(a) == b
    jitted_loss = eqx.filter_jit(loss_fn)
    for x, y in eval_dataloader:
        counter += len(x)
        x = x.numpy()
        target = y.numpy()
        y = one_hot_encode(y.numpy())
        loss += jitted_loss(model, x, y, key=None)

        pt_model = ft.partial(model, key=None)
        output = eqx.filter_vmap(pt_model)(x)
        accuracy += jnp.sum(jax.vmap(acc_fn)(output, target))

    return loss / counter, accuracy / counter


def train(
    model: PyTree,
    opt_state: PyTree,
    optim: optax.GradientTransformation,
    train_dataloader,
    key: PRNGKeyArray,
):
    for i, (x, y) in enumerate(train_dataloader):
        key, subkey = jax.random.split(key)
        x = x.numpy()
        y = one_hot_encode(y.numpy())
        model, opt_state, train_loss = step(model, optim, opt_state, x, y, subkey)
    return model


if __name__ == "__main__":
    # Harness: record the dropout key of every training step (train looks `step` up
    # as a module global), then run the post's main().
    used_keys = []
    _user_step = step

    def step(model, optim, opt_state, x, y, key):
        used_keys.append(np.asarray(jax.random.key_data(key)))
        return _user_step(model, optim, opt_state, x, y, key)

    main()
    n = len(_loader(0))
    epoch0, epoch1 = used_keys[:n], used_keys[n : 2 * n]
    assert len(used_keys) == 5 * n
    assert all(np.array_equal(a, b) for a, b in zip(epoch0, epoch1))
    print("epoch 1 reuses the dropout keys of epoch 0:", [k.tolist() for k in epoch1])

    # Inside one batch: feed the same image to every example. With one key per
    # example the dropout masks (and so the outputs) would differ; with the
    # closed-over key they are identical.
    model = Model()
    img = np.random.default_rng(2).normal(size=(1, 1, 28, 28)).astype(np.float32)
    xs = np.repeat(img, 4, axis=0)
    k = jax.random.key(0)
    shared = eqx.filter_vmap(ft.partial(model, key=k))(xs)  # tolerate: JIT502
    assert jnp.allclose(shared, shared[0])
    split = eqx.filter_vmap(model)(xs, jax.random.split(k, 4))
    assert not jnp.allclose(split, split[0])
    print("same dropout mask for every example of the batch")
