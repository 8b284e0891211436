# source: https://github.com/GroupiSP/qmodem/blob/90158012b434a0a8cd219455efc6a41fd8f936bd/scripts/cmapss/cmapss_lstm_optuna.py
#   (with the LSTM module of src/qmodem/module.py at the same commit: a research group's
#   LSTM for remaining-useful-life prediction on C-MAPSS, written with flax nnx)
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8, `mse_loss` hands the model's
#   two Dropout layers a new `nnx.Rngs(0)` on every call, and it is called inside the
#   nnx.jit-ed `train_step` and `eval_step`: every training step drops the same units of the
#   same positions (dropout is active: a different seed gives a different loss), so two calls
#   in train mode on one batch give bit-identical losses, equal to a forward pass with seed 0,
#   and the training loop never sees any other mask. Kept from the source: the LSTM module,
#   `mse_loss`, `train_step`, `eval_step` and the model, schedule and optimizer construction of
#   `objective`. Added: a random stand-in batch in place of the C-MAPSS windows (the
#   dataloaders, the optuna study, mlflow tracking and `train_loop` are left out), fixed
#   hyperparameters in place of `trial.suggest_*`, and the `__main__` block.
# gap: other
import jax
import jax.numpy as jnp
import optax
from flax import nnx

BATCH_SIZE = 10
N_EPOCHS = 1000
NUM_SENSORS = 9


class LSTM(nnx.Module):
    """Layers of LSTM and dropout with a final linear layer to output the prediction."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        dropout_rate: float = 0.1,
        *,
        rngs: nnx.Rngs,
    ) -> None:
        self.input_size: int = input_size
        self.hidden_size: int = hidden_size
        self.dropout_rate: float = dropout_rate

        # Layers
        self.lstm_layer_1 = nnx.RNN(
            nnx.OptimizedLSTMCell(input_size, hidden_size, rngs=rngs),
            return_carry=True,  # Provide the hidden states for every time step to the next layer.
        )
        self.dropout_1 = nnx.Dropout(dropout_rate)
        self.lstm_layer_2 = nnx.RNN(
            nnx.OptimizedLSTMCell(hidden_size, hidden_size, rngs=rngs),
            return_carry=False,  # Only output the final hidden state.
        )
        self.dropout_2 = nnx.Dropout(dropout_rate)
        self.linear = nnx.Linear(hidden_size, 1, rngs=rngs)

    def __call__(self, x: jax.Array, rngs: nnx.Rngs) -> jax.Array:
        # x shape: (batch, sequence_length, n_features)
        carry_1, out_1 = self.lstm_layer_1(x)
        x = self.dropout_1(out_1, rngs=rngs)
        out_2 = self.lstm_layer_2(x, initial_carry=carry_1)
        x = self.dropout_2(out_2, rngs=rngs)
        x = self.linear(x)
        return x[:, -1, :]  # Return the output of the last time step (predicted RUL)


def mse_loss(model: nnx.Module, batch: jax.Array):
    x, y = batch
    y_pred = model(x, rngs=nnx.Rngs(0))  # expect: JIT502
    return ((y - y_pred) ** 2).mean()


@nnx.jit
def train_step(model: nnx.Module, optimizer: nnx.Optimizer, batch: jax.Array):
    def loss_fn(model):
        return mse_loss(model, batch)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


@nnx.jit
def eval_step(model: nnx.Module, batch: jax.Array):
    return mse_loss(model, batch)


if __name__ == "__main__":
    window_size = 20
    n_train = 40
    model = LSTM(
        input_size=NUM_SENSORS,
        hidden_size=32,
        dropout_rate=0.3,
        rngs=nnx.Rngs(0),
    )

    schedule = optax.cosine_decay_schedule(
        init_value=1e-3,
        decay_steps=N_EPOCHS * (n_train // BATCH_SIZE),
        alpha=0.1,
    )

    optimizer = nnx.Optimizer(model, optax.adam(schedule), wrt=nnx.Param)

    kx, ky = jax.random.split(jax.random.key(1))
    x = jax.random.normal(kx, (BATCH_SIZE, window_size, NUM_SENSORS))
    y = jax.random.uniform(ky, (BATCH_SIZE, 1), maxval=100.0)
    batch = (x, y)

    model.train()
    first = eval_step(model, batch)
    second = eval_step(model, batch)

    @nnx.jit
    def loss_with_key(model, batch, key):
        x, y = batch
        return ((y - model(x, rngs=nnx.Rngs(key))) ** 2).mean()

    seed0 = loss_with_key(model, batch, jax.random.key(0))
    seed1 = loss_with_key(model, batch, jax.random.key(1))
    model.eval()
    no_dropout = eval_step(model, batch)
    model.train()

    # observed: line 65 gives every call the same dropout masks: two train-mode calls on one batch give equal losses, equal to seed 0's
    assert bool(first == second), (first, second)
    assert bool(first == seed0), (first, seed0)
    assert bool(seed0 != seed1) and bool(first != no_dropout), (seed0, seed1, no_dropout)

    losses = [float(train_step(model, optimizer, batch)) for _ in range(3)]
    assert all(jnp.isfinite(jnp.array(losses))), losses
