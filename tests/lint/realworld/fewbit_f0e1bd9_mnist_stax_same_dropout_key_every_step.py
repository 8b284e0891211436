# source: https://github.com/skolai/fewbit/blob/f0e1bd9ccaeb5020a6fa901eb1e6c0724e83b18f/mnist.py
#   (a researcher's stax + example_libraries.optimizers script reproducing the GELU paper's
#   feed-forward MNIST runs, with stax.Dropout after every hidden layer)
# observed on jax 0.10.2 CPU: `fit` makes one key, `rng = PRNGKey(seed)`, initialises the model
#   with it and then hands the same `rng` to the jitted `step` on every batch, so every
#   training step draws the same dropout masks (run with keep probability 0.5, as the script's
#   `proba` argument allows): the dropout key recorded inside the traced apply is PRNGKey(42)
#   at every step. With jax_debug_key_reuse on and PRNGKey replaced by jax.random.key, the first
#   `step` call raises KeyReuseError (init consumed the key); evaluate's `fn(xs, ys, rng=rng)`
#   reuses it again (tolerated there and at the call handing it `rng`, line 139: evaluation with a fixed key is deterministic by design here).
#   `jax.experimental.optimizers`/`stax` (removed) are spelled `jax.example_libraries.*`.
#   tensorflow, the repo's data.py and tensorboard.py are not installed/kept: `tf` is a stand-in
#   namespace for the annotations, `main` (which loads MNIST through data.py) is left out and the
#   argparse block is replaced by the __main__ block below, which calls fit with small random
#   batches and a stand-in TensorBoard.
# gap: other

import logging

import jax
import jax.example_libraries.optimizers as optimizers
import jax.example_libraries.stax as stax
import jax.numpy as jnp
from types import SimpleNamespace

from argparse import ArgumentParser, Namespace
from functools import partial
from pathlib import Path

tf = SimpleNamespace(data=SimpleNamespace(Dataset=object))  # stand-in for tensorflow
TensorBoard = object  # stand-in for the repo's tensorboard.TensorBoard

NOEPOCHES = 50
BATCH_SIZE = 128

N_HIDDEN = 128
N_LABELS = 10

sh = logging.StreamHandler()
sh.setLevel(logging.INFO)
sh.setFormatter(logging.Formatter('%(asctime)s %(levelname)s %(message)s'))
logger = logging.getLogger(__file__)
logger.propagate = False
logger.setLevel(logging.INFO)
logger.addHandler(sh)


def Dropout(rate, mode='train'):
    """Layer construction function for a dropout layer with given rate.
    """
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get('rng', None)
        if rng is None:
            msg = ('Dropout layer requires apply_fun to be called with a PRNG '
                   'key argument. That is, instead of `apply_fun(params, '
                   'inputs)`, call it like `apply_fun(params, inputs, rng)` '
                   'where `rng` is a jax.random.PRNGKey value.')
            raise ValueError(msg)
        if kwargs.get('mode', mode) == 'train':
            keep = jax.random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        else:
            return inputs
    return init_fun, apply_fun


def get_unit_by_name(unit):
    if unit == 'relu':
        return stax.Relu
    elif unit == 'elu':
        return stax.Elu
    elif unit == 'gelu':
        return stax.Gelu
    else:
        raise RuntimeError(f'Failed to find unit {unit}.')


def make_model(unit_name: str, proba: float, mode='train', n_hidden=N_HIDDEN):
    unit = get_unit_by_name(unit_name)
    block = [stax.Dense(n_hidden), unit, stax.Dropout(proba, mode)]
    return stax.serial(*block * 8, stax.Dense(10))


def jit(*args, **kwargs):
    return partial(jax.jit, *args, **kwargs)


@jit(static_argnames='agg')
def loss_entropy(y_true: jnp.ndarray, y_pred: jnp.ndarray, agg: bool = True):
    assert y_pred.ndim == 2
    ls = jax.nn.log_softmax(y_pred)
    ts = jnp.take_along_axis(ls, y_true[:, None], axis=-1)
    return -ts.mean() if agg else -ts


def evaluate(fn, testset: tf.data.Dataset, rng):
    for i, batch in enumerate(testset):
        xs, ys = (jnp.asarray(el) for el in batch)
        return fn(xs, ys, rng=rng)  # tolerate: JIT502


def fit(model,
        trainset: tf.data.Dataset,
        testset: tf.data.Dataset,
        lr: float = 1e-3,
        tb: TensorBoard = None,
        seed: int = 42):
    rng = jax.random.PRNGKey(seed)
    model_init, model_apply = model
    _, model_state = model_init(rng, (-1, 784))

    opt_init, opt_update, opt_get = optimizers.adam(lr)
    opt_state = opt_init(model_state)

    @jax.jit
    @jax.value_and_grad
    def objective(state, xs, ys, **kwargs):
        ps = model_apply(state, xs, **kwargs)
        return loss_entropy(ys, ps)

    @jax.jit
    def step(step, opt_state, xs, ys, rng):
        model_state = opt_get(opt_state)
        value, grad = objective(model_state, xs, ys, rng=rng)
        return value, opt_update(step, grad, opt_state)

    @jax.jit
    def infer(state, xs, ys, rng):
        ps = model_apply(state, xs, rng=rng)
        return loss_entropy(ys, ps)

    for i, batch in enumerate(trainset):
        xs, ys = (jnp.asarray(el) for el in batch)
        value, opt_state = step(i, opt_state, xs, ys, rng)  # expect: JIT502
        if i % 10 == 0:
            loss = evaluate(fn=partial(infer, opt_get(opt_state)),  # tolerate: JIT502
                            testset=testset,
                            rng=rng)
            tb.scalar('cross-entropy/train', value, i)
            tb.scalar('cross-entropy/test', loss, i)
            logger.info('[%3d] cross-entropy: train=%e test=%e', i, value,
                        loss)

    return value, opt_get(opt_state)


if __name__ == '__main__':
    import numpy as np

    data = np.random.default_rng(0)
    trainset = [(data.normal(size=(16, 784)).astype(np.float32), data.integers(0, 10, 16))
                for _ in range(4)]
    testset = [(data.normal(size=(16, 784)).astype(np.float32), data.integers(0, 10, 16))]
    tb = SimpleNamespace(scalar=lambda *args: None)  # stand-in for the repo's TensorBoard

    model_init, model_apply = make_model('gelu', 0.5)
    seen = []

    def recording_apply(params, inputs, **kwargs):
        jax.debug.callback(lambda k: seen.append(np.asarray(k)), kwargs['rng'])
        return model_apply(params, inputs, **kwargs)

    fit((model_init, recording_apply), trainset, testset, tb=tb)
    # observed: line 137 hands the init key to every training step: all four steps (and the
    #   one evaluation) run dropout from PRNGKey(42), so every step drops the same units
    assert len(seen) == 5
    assert all((k == np.asarray(jax.random.PRNGKey(42))).all() for k in seen)
