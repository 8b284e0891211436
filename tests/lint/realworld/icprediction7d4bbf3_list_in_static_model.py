# source: https://github.com/andrinr/IC-prediction/blob/7d4bbf38fb0166152e148e389a0dd040d5f888b8/src/nn/trainer.py (with src/nn/sequential_model.py, src/nn/dummy_model.py, src/nn/metric.py and the train_model flow of src/train.py at the same commit)
# observed on jax 0.10.2 CPU (equinox 0.13): every config in the repo sets unique_networks: True, so SequentialModel keeps its sub-networks in a plain list; the static half of eqx.partition(model, eqx.is_array) then hashes a list, and passing it through static_argnums raises "ValueError: Non-hashable static arguments are not supported ... TypeError: unhashable type: 'list'" at the learn_batch call (and at the get_batch_loss call once no training batch runs first, and at the inner jitted prediction_loss / value_and_grad calls that hand the same static half on)
# gap: static-hashability
# observed: line 347 ValueError: Non-hashable static arguments are not supported (SequentialModel ... TypeError: unhashable type: 'list') raised at this learn_batch call
# observed: line 362 the same ValueError at this get_batch_loss call when the training loop has no batch
# observed: line 302 the same ValueError at this value_and_grad call (static model_static handed on to the jitted prediction_loss), reached by running learn_batch.__wrapped__
# observed: line 261 the same ValueError at this prediction_loss call, reached by running get_batch_loss.__wrapped__
# stand-ins: normalize_inv, compute_overdensity and Potential (from the repo's cosmos package; only reached with add_potential=True, which this run does not use); the data iterators are small lists of random sequences
# changed: jax.devices('gpu')[0] -> jax.devices()[0]; removed: the unused power_spectrum_loss/mass_conservation_loss, and a debug print(y.shape) at the end of SequentialModel.__call__; Metric.to_dict omitted
import jax.numpy as jnp
import jax
import optax
import equinox as eqx
from functools import partial
import time
from typing import Callable, Tuple


# --- stand-ins for the repo's cosmos helpers (not reached in this run)
def normalize_inv(x, attributes, type="log_growth"):
    return jnp.exp(x) * attributes[0]


def compute_overdensity(rho):
    return rho / jnp.mean(rho) - 1.0


class Potential:
    def __init__(self, n):
        self.n = n

    def __call__(self, delta):
        return jnp.real(jnp.fft.ifftn(jnp.fft.fftn(delta)))


# --- src/nn/metric.py
class Metric:
    train_mse : list
    val_mse : list
    val_RSE : list
    val_RAE : list
    time : list

    def __init__(self):
        self.train_mse = []
        self.val_mse = []
        self.val_RSE = []
        self.val_RAE = []
        self.time = []

    def update(
            self,
            train_mse : float,
            val_mse : float,
            val_RSE : float,
            val_RAE : float,
            time : float):

        print(time)

        self.train_mse.append(train_mse)
        self.val_mse.append(val_mse)
        self.val_RSE.append(val_RSE)
        self.val_RAE.append(val_RAE)
        self.time.append(time)


# --- src/nn/dummy_model.py
class Dummy(eqx.Module):
    lift : eqx.nn.Conv
    projection : eqx.nn.Conv
    activation : Callable

    def __init__(
            self,
            num_spatial_dims: int,
            channels : int,
            activation: Callable,
            padding: str,
            padding_mode: str,
            key):

        self.activation = activation

        self.lift = eqx.nn.Conv(
            in_channels=channels,
            out_channels=channels * 8,
            num_spatial_dims=num_spatial_dims,
            kernel_size=1,
            padding_mode=padding_mode,
            padding=padding,
            key=key)

        self.projection = eqx.nn.Conv(  # tolerate: JIT502
            in_channels=channels * 8,
            out_channels=channels,
            num_spatial_dims=num_spatial_dims,
            kernel_size=1,
            padding_mode=padding_mode,
            padding=padding,
            key=key)

    def __call__(self, x):

        x = self.lift(x)
        x = self.projection(x)

        return x


# --- src/nn/sequential_model.py
class SequentialModel(eqx.Module):
    """
    Sequential Fourier Neural Operator
    """

    model : eqx.Module | list[eqx.Module]
    unique_networks : bool
    sequence_length : int
    sequential_skip_channels : int

    def __init__(
            self,
            sequence_length : int,
            constructor : eqx.Module,
            parameters : dict,
            unique_networks : bool,
            sequential_skip_channels : int,
            key):

        self.sequence_length = sequence_length

        print(self.sequence_length)

        self.unique_networks = unique_networks
        if not unique_networks:
            self.model = constructor(key=key, **parameters)
        else:
            self.model = []
            for i in range(sequence_length):
                self.model.append(constructor(key=key, **parameters))

        self.sequential_skip_channels = sequential_skip_channels
        return

    def __call__(
            self, 
            x : jax.Array, 
            attributes : jax.Array,
            sequential_mode : bool,
            add_potential : bool):
        """
        shape of x:
        [Frames, Channels, Depth, Height, Width]
        """
        f, c, d, h, w = x.shape
        y = jnp.zeros((f-1, c, d, h, w))
        potential = Potential(d)

        if self.sequential_skip_channels > 0:
            secondary_carry = jnp.ones((self.sequential_skip_channels, d, w, h))

        if sequential_mode:

            if self.sequential_skip_channels > 0:
                distribution = jnp.concatenate((x[0], secondary_carry), axis=0)
            else:
                distribution = x[0]

            for i in range(self.sequence_length):
                distribution = self.model[i](distribution) if self.unique_networks else self.model(distribution)
                y = y.at[i].set(distribution[0:1])

        else:

            for i in range(self.sequence_length):

                if add_potential and self.sequential_skip_channels == 0:
                    rho = normalize_inv(x[i], attributes[i], type="log_growth")
                    delta = compute_overdensity(rho)
                    pot = potential(delta)
                    distribution = jnp.concatenate((x[i], pot), axis=0)

                elif self.sequential_skip_channels > 0 and not add_potential:
                    distribution = jnp.concatenate((x[i], secondary_carry), axis=0)

                elif add_potential and self.sequential_skip_channels > 0:
                    rho = normalize_inv(x[i], attributes[i], type="log_growth")
                    delta = compute_overdensity(rho)
                    pot = potential(delta)
                    distribution = jnp.concatenate((x[i], pot, secondary_carry), axis=0)

                else:
                    distribution = x[i]

                prediction = self.model[i](distribution) if self.unique_networks else self.model(distribution)

                y = y.at[i].set(prediction[0:1])

                if self.sequential_skip_channels > 0:
                    secondary_carry = prediction[1:]

        return y


# --- src/nn/trainer.py
@partial(jax.jit)
def mse(prediction : jax.Array, truth : jax.Array):
    return jnp.mean((prediction - truth) ** 2)

@partial(jax.jit, static_argnums=[3])
def total_loss(
    prediction : jax.Array, 
    truth : jax.Array,
    attributes : jax.Array,
    single_state_loss : bool):

    if single_state_loss:
        mse_loss = mse(truth[:, -1], prediction[:, -1])
    else:
        mse_loss = mse(truth, prediction)

    return  mse_loss# + pl

@partial(jax.jit, static_argnums=[1, 4, 5, 6])
def prediction_loss(
        model_params : list,
        model_static : eqx.Module,
        sequence : jax.Array,
        attributes : jax.Array,
        sequential_mode : bool,
        add_potential : bool,
        single_state_loss : bool):

    """
    Prediction and MSE error. 

    shape of sequence:
    [Batch, Frames, Channels, Depth, Height, Width]
    """
    model = eqx.combine(model_params, model_static)
    model_fn = lambda x, y : model(x, y, sequential_mode, add_potential)
    pred = jax.vmap(model_fn)(sequence, attributes)

    loss = total_loss(pred, sequence[:, 1:], attributes[:, 1:], single_state_loss)

    return loss, pred

@partial(jax.jit, static_argnums=[3, 4, 5, 6])
def get_batch_loss(
        sequence : jax.Array,
        attributes : jax.Array,
        model_params,
        model_static : eqx.Module,
        sequential_mode : bool,
        add_potential : bool,
        single_state_loss : bool):

    # [Batch, Frames, Channels, Depth, Height, Width]

    loss, pred = prediction_loss(  # expect: JIT302
        model_params,
        model_static,
        sequence,
        attributes,
        sequential_mode,
        add_potential,
        single_state_loss)

    mean_sequence = jnp.mean(sequence[:, 1:], axis=[2, 3, 4, 5], keepdims=True)

    mse = jnp.mean((pred - sequence[:, 1:])**2, axis=[2, 3, 4, 5])
    mse_default = jnp.mean((sequence[:, 1:]-mean_sequence)**2, axis=[2, 3, 4, 5])
    rse = jnp.mean(mse / mse_default)

    ae = jnp.mean(jnp.abs((pred - sequence[:, 1:])), axis=[2, 3, 4, 5])
    mae_default = jnp.mean(jnp.abs(sequence[:, 1:]-mean_sequence), axis=[2, 3, 4, 5])
    rae = jnp.mean(ae / mae_default)

    return loss, rae, rse

value_and_grad = eqx.filter_value_and_grad(prediction_loss, has_aux=True)

@partial(jax.jit, static_argnums=[3, 5, 6, 7, 8])
def learn_batch(
        sequence : jax.Array,
        attributes : jax.Array,
        model_params,
        model_static : eqx.Module,
        optimizer_state : optax.OptState,
        optimizer_static,
        sequential_mode : bool,
        add_potential : bool,
        single_state_loss : bool):
    """
    Learn model on batch of sequences.

    shape of sequence:
    [Batch, Frames, Channels, Depth, Height, Width]
    """

    (loss, _), grad = value_and_grad(  # expect: JIT302
        model_params,
        model_static, 
        sequence,
        attributes,
        sequential_mode,
        add_potential,
        single_state_loss)

    updates, optimizer_state = optimizer_static.update(grad, optimizer_state)

    model = eqx.combine(model_params, model_static)
    model = eqx.apply_updates(model, updates)
    model_params, model_static = eqx.partition(model, eqx.is_array)

    return model_params, optimizer_state, loss

def train_model(
        model_params,
        model_static : eqx.Module,
        train_data_iterator,
        val_data_iterator,
        learning_rate : float,
        n_epochs : int,
        sequential_mode : bool,
        add_potential : bool,
        single_state_loss : bool) -> Tuple[eqx.Module, Metric]:

    start_total = time.time()

    optimizer = optax.adam(learning_rate)
    optimizer_state = optimizer.init(model_params)

    metric = Metric()

    for epoch in range(n_epochs):
        start = time.time()
        epoch_train_loss = []
        epoch_val_loss = []
        epoch_rae = []
        epoch_rse = []

        for _, data in enumerate(train_data_iterator):
            data_d = jax.device_put(data['data'], jax.devices()[0])
            attributes_d = jax.device_put(data['attributes'], jax.devices()[0])
            model_params, optimizer_state, loss = learn_batch(  # expect: JIT302
                sequence = data_d,
                attributes = attributes_d,
                model_params = model_params,
                model_static = model_static,
                optimizer_state = optimizer_state,   
                optimizer_static = optimizer,
                sequential_mode = sequential_mode,
                add_potential = add_potential,
                single_state_loss = single_state_loss)
            epoch_train_loss.append(loss)

        for _, data in enumerate(val_data_iterator):
            data_d = jax.device_put(data['data'], jax.devices()[0])
            attributes_d = jax.device_put(data['attributes'], jax.devices()[0])
            loss, rae, rse = get_batch_loss(  # expect: JIT302
                sequence = data_d,
                attributes = attributes_d,
                model_params = model_params,
                model_static= model_static,
                sequential_mode = sequential_mode,
                add_potential = add_potential,
                single_state_loss = single_state_loss)
            epoch_val_loss.append(loss)
            epoch_rae.append(rae)
            epoch_rse.append(rse)

        epoch_train_loss = jnp.array(epoch_train_loss)
        epoch_val_loss = jnp.array(epoch_val_loss)
        epoch_rae = jnp.array(epoch_rae)
        epoch_rse = jnp.array(epoch_rse)
        print(f"epoch {epoch}, train loss {epoch_train_loss.mean()}")
        print(f"epoch {epoch}, val loss {epoch_val_loss.mean()}")        
        print(f"epoch {epoch}, rae {epoch_rae.mean()}")
        print(f"epoch {epoch}, rse {epoch_rse.mean()}")
        print(f"epoch {epoch}, time {time.time() - start}")

        metric.update(
            epoch_train_loss.mean(),
            epoch_val_loss.mean(),
            epoch_rse.mean(),
            epoch_rae.mean(),
            time.time() - start_total)

    print(f"Training process done after {time.time() - start_total} s")

    return model_params, metric


if __name__ == "__main__":
    import traceback
    import numpy as np

    # the flow of src/train.py with the repo's configs (unique_networks: True)
    init_rng = jax.random.PRNGKey(0)
    model = SequentialModel(
        sequence_length = 2,
        constructor = Dummy,
        parameters = {"num_spatial_dims": 3, "channels": 1, "activation": jax.nn.relu,
                      "padding": "SAME", "padding_mode": "CIRCULAR"},
        unique_networks = True,
        sequential_skip_channels = 0,
        key = init_rng)

    model_params, model_static = eqx.partition(model, eqx.is_array)

    rs = np.random.RandomState(0)
    def batches(n):
        return [{"data": rs.rand(2, 3, 1, 4, 4, 4).astype(np.float32),
                 "attributes": rs.rand(2, 3, 2).astype(np.float32)} for _ in range(n)]

    def failing_line(train_batches):
        try:
            train_model(
                model_params = model_params,
                model_static = model_static,
                train_data_iterator = train_batches,
                val_data_iterator = batches(1),
                learning_rate = 1e-2,
                n_epochs = 1,
                add_potential = False,
                sequential_mode = False,
                single_state_loss = False)
        except ValueError as e:
            assert "Non-hashable static arguments" in str(e), e
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            return frames[-1].lineno, frames[-1].line
        raise AssertionError("no error")

    line_a = failing_line(batches(2))  # training: learn_batch
    line_b = failing_line([])          # no training batch: get_batch_loss
    print(line_a, line_b)
    assert "= learn_batch(" in line_a[1]
    assert "= get_batch_loss(" in line_b[1]

    # the jitted helpers pass the same static half on to the inner jitted loss; run their bodies
    # unjitted (__wrapped__) to reach those inner calls
    def inner_failing_line(fn, *args):
        try:
            fn(*args)
        except ValueError as e:
            assert "Non-hashable static arguments" in str(e), e
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            return frames[-1].lineno, frames[-1].line
        raise AssertionError("no error")

    b = batches(1)[0]
    seq, attrs = jnp.asarray(b["data"]), jnp.asarray(b["attributes"])
    optimizer = optax.adam(1e-2)
    line_c = inner_failing_line(learn_batch.__wrapped__, seq, attrs, model_params, model_static,
                                optimizer.init(model_params), optimizer, False, False, False)
    line_d = inner_failing_line(get_batch_loss.__wrapped__, seq, attrs, model_params, model_static,
                                False, False, False)
    print(line_c, line_d)
    assert "= value_and_grad(" in line_c[1]
    assert "= prediction_loss(" in line_d[1]
