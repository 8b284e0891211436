# source: https://github.com/Arnaud15/house_prices_mlp/blob/052ffdcc060b3c75ad36b304b3b034e3331a89e8/train.py
# observed on jax 0.10.2 CPU: train_step and eval_step each define and jit a new pure_loss closure on
#   every call, so every training batch compiles pure_loss again: twice under value_and_grad
#   (forward, backward) and once for evaluation: 2 epochs of 4 batches compile it 24 times, 4 epochs 48.
# gap: per-call-recompile
# (kept: train_step, eval_step and train as written. Added: update_running and init_params copied
#  from utils.py of the same commit; a stand-in SummaryWriter for board.py; a stand-in two-layer MLP
#  for models.py; stand-ins `tf.data.Dataset.zip` / `tfds.as_numpy` that zip two lists of NumPy
#  batches, since TensorFlow is not installed; the __main__ block with small linear data.)
import os
import types
from typing import Any, List, Optional, Tuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import jax.random as random
import numpy as np
import optax
from flax.core.frozen_dict import FrozenDict, unfreeze
from flax.traverse_util import flatten_dict, unflatten_dict

tf = types.SimpleNamespace(data=types.SimpleNamespace(Dataset=types.SimpleNamespace(
    zip=lambda datasets: list(zip(*datasets)))))
tfds = types.SimpleNamespace(as_numpy=lambda dataset: dataset)


class SummaryWriter:  # stand-in for board.SummaryWriter
    def __init__(self, output_dir):
        self.output_dir = output_dir

    def scalar(self, *args, **kwargs):
        pass

    def histogram(self, *args, **kwargs):
        pass


def update_running(obs: float, loss: Optional[float], decay: float):
    """
    Small helper to update an ewma with current value loss, where loss is None
    at initialization.
    """
    assert decay > 0.0 and decay <= 1.0
    if loss is None:
        return obs
    else:
        return obs * (1.0 - decay) + loss * decay


def init_params(rng, model, inputs_shape, extra_keys=[], bias=None, layer_name=""):
    n_extra_keys = len(extra_keys)
    out_keys = random.split(rng, num=3 + n_extra_keys)
    if n_extra_keys:
        rng, rd_input_key, params_key, extra_keys_rngs = (
            out_keys[0], out_keys[1], out_keys[2], out_keys[3:],
        )
    else:
        rng, rd_input_key, params_key = out_keys
        extra_keys_rngs = []
    dummy_input = random.normal(rd_input_key, shape=inputs_shape)
    base_keys = {"params": params_key}
    base_keys.update({name: key for name, key in zip(extra_keys, extra_keys_rngs)})
    params = model.init(base_keys, dummy_input)

    if bias is None:
        return params

    assert isinstance(bias, float)
    assert isinstance(layer_name, str)
    assert layer_name
    dico = {"/".join(k): v for k, v in flatten_dict(unfreeze(params)).items()}
    new_dico = {
        tuple(key.split("/")): value + bias
        if ("bias" in key) and (layer_name in key)
        else value
        for key, value in dico.items()
    }
    return FrozenDict(unflatten_dict(new_dico))


class MLP(nn.Module):  # stand-in for models.MLP
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(8, name="1")(x))
        return nn.Dense(1, name="2")(x)[..., 0]


def train_step(
    rng, params, opt_state, x, y, model, optimizer, loss_fn,
):
    @jax.jit  # expect: JIT301
    def pure_loss(params):
        predicted = model.apply(
            params, x, rngs={"dropout": rng}
        )  # TODO generalize this rngs arg
        loss_items = loss_fn(y, predicted)
        return jnp.mean(loss_items), predicted

    (loss_step, predicted_step), grad_step = jax.value_and_grad(
        pure_loss, has_aux=True
    )(params)
    param_updates, opt_state = optimizer.update(grad_step, opt_state)
    params = optax.apply_updates(params, param_updates)

    residuals_step = y - predicted_step
    return params, opt_state, loss_step, residuals_step


def eval_step(
    rng, params, x, y, model, loss_fn,
):
    @jax.jit  # TODO look into this  # expect: JIT301
    def pure_loss(params):
        predicted = model.apply(
            params, x, rngs={"dropout": rng}
        )  # TODO generalize this rngs arg
        loss_items = loss_fn(y, predicted)
        return jnp.mean(loss_items), predicted

    loss_step, predicted_step = pure_loss(params)
    residuals_step = y - predicted_step
    return loss_step, residuals_step


def train(
    rng,
    model,
    optimizer,
    train_dataset,
    eval_dataset,
    loss_fn,
    num_epochs,
    inputs_shape,
    layer_name,
    bias,
    output_dir=None,
    hist_every=None,
    print_every=None,
):
    if output_dir is not None:
        assert isinstance(output_dir, str)
        if not os.path.isdir(output_dir):
            os.makedirs(output_dir)
            print(f"Directory '{output_dir}' did not exist and was created.")
        writer = SummaryWriter(output_dir)
    if hist_every is not None:
        assert output_dir is not None
        assert isinstance(hist_every, int)
    if print_every is not None:
        assert output_dir is not None
        assert isinstance(print_every, int)

    rng, init_params_rng = random.split(rng, num=2)
    params = init_params(
        rng=init_params_rng,
        model=model,
        inputs_shape=inputs_shape,
        bias=bias,
        layer_name=layer_name,
    )

    opt_state = optimizer.init(params)

    step = 0
    for _ in range(num_epochs):
        running_train_loss = None
        running_eval_loss = None
        for ((x_train, y_train), (x_eval, y_eval)) in tfds.as_numpy(
            tf.data.Dataset.zip((train_dataset, eval_dataset))
        ):
            rng, rng_train, rng_eval = random.split(rng, num=3)
            params, opt_state, loss_step, res_step = train_step(
                rng=rng_train,
                params=params,
                opt_state=opt_state,
                x=x_train,
                y=y_train,
                model=model,
                optimizer=optimizer,
                loss_fn=loss_fn,
            )
            loss_eval_step, _ = eval_step(
                rng_eval,
                params,
                x=x_eval,
                y=y_eval,
                model=model,
                loss_fn=loss_fn,
            )
            running_train_loss = update_running(
                obs=loss_step,
                loss=running_train_loss,
                decay=0.9,  # TODO make this an argument
            )
            running_eval_loss = update_running(
                obs=loss_eval_step, loss=running_eval_loss, decay=0.9
            )
            step += 1
            if (print_every is not None) and (step % print_every == 0):
                writer.scalar("train_loss", running_train_loss, step=step)
                writer.scalar("validation_loss", running_eval_loss, step=step)
                print(f"Step {step} | Loss: {loss_step:.3f}")
            if (hist_every is not None) and (step % hist_every == 0):
                writer.histogram("train_hist", res_step, bins=5, step=step)
    return params


# observed: line 92 every train_step call compiles a new jit(pure_loss) (forward and backward, 2 compiles), also for identical inputs
# observed: line 113 every eval_step call compiles a new jit(pure_loss) (1 compile), also for identical inputs
if __name__ == "__main__":
    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiled.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    def pure_loss_compiles(fn, *args, **kwargs):
        before = len(compiled)
        fn(*args, **kwargs)
        return compiled[before:].count("jit(pure_loss)")

    rs = np.random.RandomState(0)
    X = rs.normal(size=(64, 10)).astype(np.float32)
    Y = (X @ rs.normal(size=10) + 15.15).astype(np.float32)
    batches = [(X[i:i + 8], Y[i:i + 8]) for i in range(0, 64, 8)]
    train_data, eval_data = batches[:4], batches[4:]
    mse = jax.vmap(lambda y, p: (y - p) ** 2)
    model, optimizer = MLP(), optax.adam(5e-3)

    params = init_params(random.PRNGKey(0), model, (10,))
    opt_state = optimizer.init(params)
    x, y = batches[0]
    rng = random.PRNGKey(1)
    train_counts = [pure_loss_compiles(train_step, rng, params, opt_state, x, y, model, optimizer, mse)
                    for _ in range(3)]
    eval_counts = [pure_loss_compiles(eval_step, rng, params, x, y, model, mse) for _ in range(3)]
    print("jit(pure_loss) compiles per identical train_step call:", train_counts)
    print("jit(pure_loss) compiles per identical eval_step call:", eval_counts)
    assert train_counts == [2, 2, 2], train_counts
    assert eval_counts == [1, 1, 1], eval_counts

    def run(num_epochs):
        return pure_loss_compiles(
            train, rng=random.PRNGKey(11234), model=model, optimizer=optimizer,
            train_dataset=train_data, eval_dataset=eval_data, loss_fn=mse,
            num_epochs=num_epochs, inputs_shape=(10,), bias=15.15, layer_name="2")

    n2, n4 = run(2), run(4)
    print("jit(pure_loss) compiles in train(): 2 epochs (8 batches):", n2, "4 epochs (16 batches):", n4)
    assert (n2, n4) == (24, 48), (n2, n4)
