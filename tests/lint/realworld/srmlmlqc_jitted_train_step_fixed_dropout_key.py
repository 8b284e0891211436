# source: https://github.com/KalelChester/srml-ml-qc/blob/53cca2e9887a1eac9913ab218cfd2af604418571/solar_model.py
#   (a solar-irradiance quality-control model: `SolarRNN`, `DenseNN` and the jitted
#   `train_step`, called once per batch by `SolarHybridModel.fit`)
# observed on jax 0.10.2 CPU (flax 0.12.8, optax 0.2.8): `train_step` is jitted with
#   `is_rnn` static, and its RNN branch builds the dropout key from the constant seed
#   `jax.random.PRNGKey(0)` inside the traced loss, so every training step draws the same
#   two dropout masks (the docstring calls this "acceptable for training"): two steps from
#   one state on one batch give bit-identical parameters, where a fresh dropout key gives
#   others. Shortened: the docstrings (the long numpydoc sections). Added: the imports the
#   shown code uses, and the `__main__` block standing for `fit`'s loop (random sequences
#   and labels in place of the SRML data, class weights [2, 1] as in the docstring).
# gap: other
import functools

import jax
import jax.numpy as jnp
from flax import linen as nn
from flax.training import train_state
import optax


class SolarRNN(nn.Module):
    """
    Recurrent Neural Network for time-series solar QC prediction.
    """
    hidden_dim: int = 64
    num_layers: int = 2
    dropout_rate: float = 0.2
    use_attention: bool = True

    @nn.compact
    def __call__(self, x, training: bool = False):
        """
        Args:
            x: Input tensor of shape (Batch_Size, Time_Steps, Features)
            training: Whether in training mode (for dropout)
        """
        batch_size = x.shape[0]

        # Layer 1: First GRU layer
        GRU_1 = nn.scan(
            nn.GRUCell,
            variable_broadcast='params',
            split_rngs={'params': False},
            in_axes=1,
            out_axes=1
        )
        carry_1 = jnp.zeros((batch_size, self.hidden_dim))
        carry_1, outputs_1 = GRU_1(features=self.hidden_dim)(carry_1, x)

        # Residual connection: project input to hidden_dim if needed
        if x.shape[-1] != self.hidden_dim:
            x_proj = nn.Dense(self.hidden_dim)(x)
        else:
            x_proj = x

        # Add residual
        outputs_1 = outputs_1 + 0.5 * x_proj

        # Layer 2: Second GRU layer (optional but recommended)
        if self.num_layers >= 2:
            GRU_2 = nn.scan(
                nn.GRUCell,
                variable_broadcast='params',
                split_rngs={'params': False},
                in_axes=1,
                out_axes=1
            )
            carry_2 = jnp.zeros((batch_size, self.hidden_dim))
            carry_2, outputs_2 = GRU_2(features=self.hidden_dim)(carry_2, outputs_1)

            # Residual connection
            outputs_2 = outputs_2 + 0.5 * outputs_1

            outputs = outputs_2
        else:
            outputs = outputs_1

        # Temporal Attention: Learn which time steps are most important
        if self.use_attention:
            # Attention scores: (Batch, Time, Hidden_Dim) -> (Batch, Time, 1)
            attention_scores = nn.Dense(1)(outputs)  # (B, T, 1)
            attention_weights = jax.nn.softmax(attention_scores, axis=1)  # (B, T, 1)

            # Apply attention: weighted sum over time
            attended = jnp.sum(outputs * attention_weights, axis=1)  # (B, Hidden_Dim)
        else:
            # Fallback: just use the final hidden state
            attended = outputs[:, -1, :]

        # Dropout for regularization
        if training:
            attended = nn.Dropout(rate=self.dropout_rate)(attended, deterministic=False)

        # Dense layers for classification
        x = nn.Dense(64)(attended)
        x = nn.relu(x)

        if training:
            x = nn.Dropout(rate=self.dropout_rate)(x, deterministic=False)

        x = nn.Dense(32)(x)
        x = nn.relu(x)

        # Output logits for [BAD(0), GOOD(1)]
        logits = nn.Dense(2)(x)

        return logits


class DenseNN(nn.Module):
    """
    Fallback Dense Neural Network for non-sequential predictions.
    """
    @nn.compact
    def __call__(self, x, training: bool = False):
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(64)(x)
        x = nn.relu(x)
        x = nn.Dense(32)(x)
        x = nn.relu(x)
        logits = nn.Dense(2)(x)  # logits for [BAD(0), GOOD(1)]
        return logits


@functools.partial(jax.jit, static_argnums=(3,))
def train_step(state, batch, class_weights, is_rnn: bool = False):
    """
    Single training step with class-weighted loss and JIT compilation.

    Notes
    -----
    - Uses fixed dropout RNG (key=0) per step (acceptable for training)
    - Class weights typically computed as 1 / class_frequency
    - Supports both RNN (3D input) and Dense (2D input) models
    - Loss is scalar (reduced across batch)
    - is_rnn must be consistent during training epoch (it is)
    """
    def loss_fn(params):
        if is_rnn:
            # RNN models need training=True for dropout
            logits = state.apply_fn(
                {'params': params},
                batch['x'],
                training=True,
                rngs={'dropout': jax.random.PRNGKey(0)}  # expect: JIT502
            )
        else:
            logits = state.apply_fn({'params': params}, batch['x'], training=False)

        labels = jax.nn.one_hot(batch['y'], 2)
        per_sample = optax.softmax_cross_entropy(logits=logits, labels=labels)
        weights = class_weights[batch['y']]  # lookup final weight per sample
        return jnp.mean(per_sample * weights)

    grads = jax.grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads)


if __name__ == "__main__":
    data_key, label_key = jax.random.split(jax.random.PRNGKey(7))
    X_seq = jax.random.normal(data_key, (16, 12, 6))
    y_seq = jax.random.bernoulli(label_key, 0.7, (16,)).astype(jnp.int32)
    class_weights = jnp.array([2.0, 1.0])

    rng = jax.random.PRNGKey(42)
    model = SolarRNN(hidden_dim=16, num_layers=2, dropout_rate=0.2, use_attention=True)
    dummy_input = jnp.ones((1, X_seq.shape[1], X_seq.shape[2]))
    params = model.init(rng, dummy_input, training=False)['params']
    nn_state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))

    jax_batch = {'x': X_seq, 'y': y_seq}
    first = train_step(nn_state, jax_batch, class_weights, is_rnn=True)
    second = train_step(nn_state, jax_batch, class_weights, is_rnn=True)
    # observed: line 146 uses the constant key PRNGKey(0) for dropout on every step: two
    #   steps from one state on one batch are bit-identical (same dropout masks)
    same = jax.tree_util.tree_all(jax.tree_util.tree_map(
        lambda a, b: bool(jnp.array_equal(a, b)), first.params, second.params))
    assert same

    # What a fresh dropout key per step gives: a different mask, different logits.
    out_0 = model.apply({'params': params}, X_seq, training=True, rngs={'dropout': jax.random.PRNGKey(0)})
    out_1 = model.apply({'params': params}, X_seq, training=True, rngs={'dropout': jax.random.PRNGKey(1)})
    assert not jnp.allclose(out_0, out_1)
