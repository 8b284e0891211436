# source: https://github.com/moskomule/equinox_vision/blob/0795551981081ca54c472d6e1bc1201965e786d3/examples/cifar10.py
#   (an individual's CIFAR-size vision library for equinox: its training example, an
#   equinox.filter_jit train_step that samples and augments each batch from a key)
# observed on jax 0.10.2 CPU: main splits `key` into (key, key0), leaves key0 unused, hands
#   `key` to the model constructor, and then splits that same `key` again in the training
#   loop to make the batch keys. The constructor (ResNet.__init__) splits its key too, and on
#   0.10.2 split(k, 2)[i] == split(k, 3)[i] == split(k, 4)[i] (threefry is partitionable),
#   so the loop walks the model's own key tree: the batch key of step 0 is the key the stem
#   conv was built from, of step 1 the key of the first stage, of step 2 the key that drew
#   the second conv's (kaiming) weights. JAX's key-reuse checker raises KeyReuseError at the
#   loop's split.
#   Kept: Model and main as written. Changed: num_iters 80_000 -> 100 and batch_size 128 ->
#   8 (small inputs). Added: stand-ins for `from equinox_vision import data, models,
#   transforms`: a random 8x8 Dataset for data.cifar10 (torchvision is not installed) with
#   the repository's data.loader as written; a small model for models.wrn28_2_gn that keeps
#   ResNet.__init__'s key handling line for line (one conv per stage); the repository's
#   normalize and compose, and identity crop and flip; the __main__ block (instead of its
#   argparse) that runs main, replays its key lines, and runs it under the key-reuse checker.
# gap: other
# observed: line 175 the batch keys of steps 0-2 equal the stem conv's, the first stage's and the second conv's weight keys of the model built from the same key; with jax_debug_key_reuse on, main raises KeyReuseError at this split
import enum

import equinox
import jax
import optax
from jax import numpy as jnp
from rich import print
from rich.progress import track

import dataclasses
import types

_recorded = {}  # stand-in bookkeeping: the keys the stand-in model drew from


class _TinyResNet(equinox.Module):
    # stand-in for models.ResNet: ResNet.__init__'s key handling, one conv per stage
    conv_layers: tuple
    fc: equinox.nn.Linear

    def __init__(self, num_classes=10, *, key):
        key, key0, key1 = jax.random.split(key, 3)
        _recorded["stem_conv"] = key0
        conv = equinox.nn.Conv2d(3, 4, 3, padding=1, use_bias=False, key=key0)
        self.fc = equinox.nn.Linear(4, num_classes, key=key1)
        key, key0, key1, key2 = jax.random.split(key, 4)
        _recorded["stage1"] = key0
        stages = tuple(equinox.nn.Conv2d(4, 4, 3, padding=1, use_bias=False, key=k) for k in (key0, key1, key2))
        conv_layers = (conv,) + stages
        conv_keys = jax.random.split(key, len(conv_layers))
        _recorded["conv_weights"] = conv_keys
        new_weights = [jax.random.normal(k, c.weight.shape) * 0.3 for c, k in zip(conv_layers, conv_keys)]
        self.conv_layers = equinox.tree_at(lambda m: [c.weight for c in m], conv_layers, new_weights)

    def __call__(self, x, state=None, *, key=None):
        for c in self.conv_layers:
            x = jax.nn.relu(c(x))
        return self.fc(x.mean(axis=(1, 2))), state


models = types.SimpleNamespace(  # stand-in for equinox_vision.models
    wrn28_2=lambda key, **kw: _TinyResNet(key=key), wrn28_2_gn=lambda key, **kw: _TinyResNet(key=key),
    resnet56=lambda key, **kw: _TinyResNet(key=key), resnet56_gn=lambda key, **kw: _TinyResNet(key=key))


@dataclasses.dataclass(frozen=True)
class Dataset:  # as equinox_vision.data.Dataset (fields used here)
    inputs: jax.Array
    labels: jax.Array


def _cifar10(root, is_train, download=False):  # stand-in: random 8x8 images
    n = 64 if is_train else 16
    k = jax.random.PRNGKey(100 + int(is_train))
    return Dataset(jax.random.uniform(k, (n, 3, 8, 8)), jnp.arange(n) % 10)


def _loader(dataset, key, batch_size=None, indices=None, transform=None):  # data.loader as written
    size = dataset.inputs.shape[0]
    if batch_size is not None:
        key, key1 = jax.random.split(key)
        indices = jax.random.choice(key1, size, shape=(batch_size,), replace=False)
    if indices is None:
        raise TypeError('...')
    inputs = dataset.inputs[indices]
    labels = dataset.labels[indices]

    if transform is not None:
        inputs = jax.vmap(transform)(inputs, jax.random.split(key, inputs.shape[0]))

    return inputs, labels


data = types.SimpleNamespace(cifar10=_cifar10, loader=_loader)


def _normalize(mean, std):  # transforms.normalize as written (condensed)
    mean, std = jnp.array(mean)[:, None, None], jnp.array(std)[:, None, None]
    return lambda img, key=None: (img - mean) / std


def _compose(funcs):  # transforms.compose as written
    num_funcs = len(funcs)

    def composed(img, key):
        keys = jax.random.split(key, num_funcs)
        for func, key in zip(funcs, keys):
            img = func(img, key)
        return img

    return composed


transforms = types.SimpleNamespace(normalize=_normalize, compose=_compose,
                                   random_crop=lambda *a: (lambda img, key: img),
                                   random_hflip=lambda *a: (lambda img, key: img))


class Model(enum.StrEnum):
    wrn28_2 = enum.auto()
    wrn28_2_gn = enum.auto()
    resnet56 = enum.auto()
    resnet56_gn = enum.auto()

    @property
    def create(self):
        return getattr(models, self.value)


def main(model: Model):
    batch_size = 8  # 128 in the repository
    num_iters = 100  # 80_000 in the repository

    key = jax.random.PRNGKey(0)
    key, key0 = jax.random.split(key)

    print('--setup model--')
    model = Model(model).create(key, return_state=True)
    state = equinox.nn.State(model)

    print('--setup dataset--')
    trainset = data.cifar10("~/.cache/equinox_vision", True, True)
    testset = data.cifar10("~/.cache/equinox_vision", False, True)
    transform = transforms.compose([transforms.normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
                                    transforms.random_crop(32, 4, 'reflect'),
                                    transforms.random_hflip()])
    optim = optax.chain(optax.add_decayed_weights(1e-4),
                        optax.sgd(optax.warmup_cosine_decay_schedule(0.01, 0.1,
                                                                     warmup_steps=int(0.01 * num_iters),
                                                                     decay_steps=int(0.99 * num_iters)),
                                  momentum=0.9))
    opt_state = optim.init(equinox.filter(model, equinox.is_inexact_array))

    def forward(model, state, inputs, labels):
        outputs, state = jax.vmap(model, axis_name='batch', in_axes=(0, None), out_axes=(0, None))(inputs, state)
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(outputs, labels)), state

    @equinox.filter_jit
    def train_step(model, state, key, opt_state):
        inputs, labels = data.loader(trainset, key=key, batch_size=batch_size, transform=transform)
        (loss, state), grads = equinox.filter_value_and_grad(forward, has_aux=True)(model, state, inputs, labels)
        updates, opt_state = optim.update(grads, opt_state, model)
        model = equinox.apply_updates(model, updates)
        return loss, state, model, opt_state

    @equinox.filter_jit
    def val_step(model, inputs, labels):
        inputs = transforms.normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))(inputs)
        outputs, _ = jax.vmap(model)(inputs)
        preds = jnp.argmax(outputs, axis=1)
        return jnp.sum(preds == labels) / preds.shape[0]

    print('--training--')
    for i in track(range(num_iters)):
        key, key0 = jax.random.split(key)  # expect: JIT502
        loss, state, model, opt_state = train_step(model, state, key0, opt_state)
        if i % (num_iters // 100) == 0:
            print(f"{float(loss):.4f}")
            accuracy = val_step(equinox.Partial(equinox.tree_inference(model, value=True), state=state),
                                testset.inputs, testset.labels)
            print(f"test accuracy at {i:>10}th iteration: {accuracy:.3f}")


if __name__ == "__main__":
    import traceback

    main(Model.wrn28_2_gn)

    # main's key lines replayed: the batch keys of steps 0, 1, 2
    key = jax.random.PRNGKey(0)
    key, _ = jax.random.split(key)
    batch_keys = []
    for i in range(3):
        key, key0 = jax.random.split(key)
        batch_keys.append(key0)
    assert jnp.array_equal(batch_keys[0], _recorded["stem_conv"])
    assert jnp.array_equal(batch_keys[1], _recorded["stage1"])
    assert jnp.array_equal(batch_keys[2], _recorded["conv_weights"][1])

    jax.config.update("jax_debug_key_reuse", True)
    _PRNGKey = jax.random.PRNGKey
    jax.random.PRNGKey = lambda seed: jax.random.key(seed)  # the checker follows typed keys
    try:
        main(Model.wrn28_2_gn)
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 175, frames[-1].lineno
    finally:
        jax.random.PRNGKey = _PRNGKey
        jax.config.update("jax_debug_key_reuse", False)
