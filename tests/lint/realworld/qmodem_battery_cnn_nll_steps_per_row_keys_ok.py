# source: https://github.com/GroupiSP/qmodem/blob/90158012b434a0a8cd219455efc6a41fd8f936bd/src/qmodem/battery/train_steps.py
#   (with src/qmodem/module.py, src/qmodem/battery/models.py and src/qmodem/train.py at the same
#   commit: a research group's heteroscedastic 1D CNN for battery remaining-useful-life
#   prediction, written with flax nnx)
# observed on jax 0.10.2 CPU: runs clean. With flax 0.12.8 and optax 0.2.8, `make_nll_steps`
#   builds its nnx.jit-ed train and eval steps once; `train_loop` splits a fresh key per batch
#   into one subkey per row, and `model_fwd` (an `nnx.vmap` that broadcasts the model and maps
#   the keys) builds each row's `nnx.Rngs` from its own key, so every row gets its own dropout
#   mask (identical rows give different outputs in train mode, the same outputs in eval mode),
#   the steps compile once for two epochs of same-shape batches, the parameters change, and
#   JAX's key-reuse checker finds no reuse. Kept from the source: `model_fwd`, `GaussianBlock`
#   and `nll_batched` of module.py, `_DetConv1D`, `_conv_layer_factory` and `CNN` of models.py
#   (the Bayesian and quantum-generated convolutions, their `ConvType` members and `mc_sample`
#   are left out), `make_nll_steps` of train_steps.py, and the key handling and loops of
#   `train_loop` (its callbacks, early stopping, best-state tracking and tqdm are left out).
#   Added: random stand-in batches for the battery discharge windows, the optimizer
#   construction (adam on a cosine schedule, as run_training builds it) and the `__main__`
#   block.
# gap: other
from __future__ import annotations

from enum import StrEnum, auto

import flax.nnx as nnx
import jax
import jax.numpy as jnp
import optax


@nnx.vmap(in_axes=(None, 0, 0), out_axes=0)
def model_fwd(model: nnx.Module, x_i: jax.Array, key: jax.Array) -> jax.Array:
    # NOTE: we need to add a batch dimension to x_i since the model expects a batch of inputs.
    # NOTE: we need to remove the batch dimension from the output since we only want the output for the single input x_i.
    return model(x_i[None], rngs=nnx.Rngs(default=key))[0]


class GaussianBlock(nnx.Module):
    def __init__(self, input_dim: int, output_dim: int, *, rngs: nnx.Rngs) -> None:
        self.linear_1 = nnx.Linear(input_dim, output_dim, rngs=rngs)
        # Bias initialised to -3 so that softplus(-3) ≈ 0.049 at the start of
        # training. This keeps the predicted variance small in early epochs,
        # ensuring the mean head receives a strong gradient signal before the
        # variance has any chance to inflate and suppress it (the canonical NLL
        # "variance collapse" failure mode).
        self.linear_2 = nnx.Linear(
            input_dim,
            output_dim,
            rngs=rngs,
            bias_init=nnx.initializers.constant(-3.0),
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        mu = self.linear_1(x)
        var = self.linear_2(x)
        var_positive = nnx.softplus(var)
        return jnp.concat([mu, var_positive], axis=1)


def nll_batched(
    model: nnx.Module,
    batch: tuple[jax.Array, jax.Array],
    keys: jax.Array,
    beta: float = 0.0,
) -> jax.Array:
    xs, labels = batch[0], batch[1].squeeze(-1)
    # Add a batch dimension to xs for the model's forward pass
    outputs = model_fwd(model, xs, keys)
    means, variances = outputs[:, 0], outputs[:, 1]
    variances = jnp.clip(variances, min=1e-8)
    losses = 0.5 * jnp.log(variances) + 0.5 * jnp.square(labels - means) / variances

    # beta-NLL loss (https://arxiv.org/abs/2203.09168)
    w = jax.lax.stop_gradient(variances) ** beta
    losses = (
        losses * w / jnp.mean(w)
    )  # Normalize by the mean of the weights to keep the loss scale consistent across different beta values.

    return losses


class ConvType(StrEnum):
    DETERMINISTIC = auto()


class _DetConv1D(nnx.Module):
    def __init__(self, **kwargs) -> None:
        """Thin wrapper to filter the rngs at call time for the deterministic conv
        layer."""
        self._conv = nnx.Conv(**kwargs)

    def __call__(self, x: jax.Array, rngs: nnx.Rngs | None = None) -> jax.Array:
        return self._conv(x)


def _conv_layer_factory(conv_type: ConvType, **kwargs) -> nnx.Module:
    if conv_type == ConvType.DETERMINISTIC:
        return _DetConv1D(**kwargs)
    else:
        raise ValueError(f"Unsupported convolution type: {conv_type}")


class CNN(nnx.Module):
    def __init__(
        self,
        conv_type: ConvType = ConvType.DETERMINISTIC,
        in_features: int = 1,
        n_filters: int = 4,
        kernel_size: int = 5,
        dropout_rate: float = 0.1,
        act_fn: nnx.Module = nnx.gelu,
        mcd: bool = False,
        *,
        rngs: nnx.Rngs,
    ) -> None:
        self.act_fn = act_fn
        self.mcd = mcd

        conv_kwargs = {
            "in_features": in_features,
            "out_features": n_filters,
            "kernel_size": kernel_size,
            "padding": "VALID",
            "rngs": rngs,
        }

        self.conv = _conv_layer_factory(conv_type, **conv_kwargs)
        self.dropout = nnx.Dropout(dropout_rate)

        # GaussianBlock to output mean and variance
        self.gauss = GaussianBlock(n_filters, 1, rngs=rngs)

    def __call__(self, x: jax.Array, rngs: nnx.Rngs) -> jax.Array:
        # Conv1D with activation and dropout
        x = self.conv(x, rngs=rngs)
        x = self.act_fn(x)
        x = self.dropout(x, rngs=rngs)

        # Global Average Pooling: (batch, window_size, n_filters) -> (batch, n_filters)
        x = jnp.mean(x, axis=-2)

        # GaussianBlock: (batch, n_filters) -> (batch, 2)
        return self.gauss(x)

    def train(self, **attributes) -> CNN:
        return super().train(**attributes)

    def eval(self, **attributes) -> CNN:
        if self.mcd:
            # If Monte Carlo Dropout is enabled, keep the module in training mode during evaluation
            return super().train(**attributes)

        return super().eval(**attributes)


def make_nll_steps(beta: float = 0.0):
    @nnx.jit
    def train_step(
        model: nnx.Module,
        batch: tuple[jax.Array, jax.Array],
        keys: jax.Array,
        optimizer: nnx.Optimizer,
    ) -> jax.Array:
        def loss_fn(model: nnx.Module) -> jax.Array:
            return jnp.mean(nll_batched(model, batch, keys, beta=beta))

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    @nnx.jit
    def eval_step(
        model: nnx.Module,
        batch: tuple[jax.Array, jax.Array],
        keys: jax.Array,
        optimizer: nnx.Optimizer,
    ) -> jax.Array:
        return jnp.mean(nll_batched(model, batch, keys, beta=beta))

    return train_step, eval_step


def train_loop(n_epochs, train_dataloader_builder, val_dataloader_builder, initial_key,
               model, optimizer, train_batch_fn, eval_batch_fn):
    key = initial_key
    history = []
    for epoch in range(n_epochs):
        model.train()
        train_losses = []
        dataloader_train = train_dataloader_builder(epoch)
        for batch in dataloader_train:
            splits = jax.random.split(key, num=batch[0].shape[0] + 1)
            key, subkeys = splits[0], splits[1:]
            train_losses.append(train_batch_fn(model, batch, subkeys, optimizer))

        train_loss = jnp.mean(jnp.array(train_losses)).item()

        model.eval()
        val_losses = []
        dataloader_val = val_dataloader_builder(epoch)
        for batch in dataloader_val:
            splits = jax.random.split(key, num=batch[0].shape[0] + 1)
            key, subkeys = splits[0], splits[1:]
            val_losses.append(eval_batch_fn(model, batch, subkeys, optimizer))

        val_loss = jnp.mean(jnp.array(val_losses)).item()
        history.append((train_loss, val_loss))
    return history


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    batch_size, window_size = 8, 20
    data_key = jax.random.key(123)
    batches = []
    for _ in range(3):
        data_key, kx, ky = jax.random.split(data_key, 3)
        xs = jax.random.normal(kx, (batch_size, window_size, 1))
        ys = jax.random.uniform(ky, (batch_size, 1))
        batches.append((xs, ys))

    model = CNN(kernel_size=5, n_filters=4, dropout_rate=0.3, rngs=nnx.Rngs(0))
    schedule = optax.cosine_decay_schedule(init_value=1e-2, decay_steps=100, alpha=0.1)
    optimizer = nnx.Optimizer(model, optax.adam(schedule), wrt=nnx.Param)
    train_step, eval_step = make_nll_steps(beta=0.5)

    params_before = jax.tree.map(lambda x: x, nnx.state(model, nnx.Param))
    history = train_loop(1, lambda e: batches[:2], lambda e: batches[2:], jax.random.key(1),
                         model, optimizer, train_step, eval_step)
    after_first_epoch = len(compiles)
    history += train_loop(1, lambda e: batches[:2], lambda e: batches[2:], jax.random.key(2),
                          model, optimizer, train_step, eval_step)
    assert len(compiles) == after_first_epoch, (after_first_epoch, len(compiles))
    assert all(jnp.isfinite(jnp.array(history)).ravel()), history
    changed = jax.tree.map(lambda a, b: bool((a != b).any()), params_before,
                           nnx.state(model, nnx.Param))
    assert any(jax.tree.leaves(changed)), changed

    same_rows = jnp.broadcast_to(batches[0][0][:1], (4, window_size, 1))
    row_keys = jax.random.split(jax.random.key(7), 4)
    model.train()
    out_train = nnx.jit(model_fwd)(model, same_rows, row_keys)
    model.eval()
    out_eval = nnx.jit(model_fwd)(model, same_rows, row_keys)
    assert len({float(v) for v in out_train[:, 0]}) > 1, out_train
    assert bool(jnp.allclose(out_eval, out_eval[0])), out_eval
