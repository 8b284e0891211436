# source: https://github.com/Qiaoran-M/dsa4212_lstm/blob/3f0b30deb2be0d50440bf9076dfd4804fe0d5886/model/lstm.py
#   (a course project's LSTM written from scratch in JAX for taxi-demand forecasting, with
#   model/helper.py at the same commit and the training cell of run.ipynb at ac029ef)
# observed on jax 0.10.2 CPU: runs correctly under jit: `forward` runs the LSTM cell over
#   the time steps with lax.scan, is vmapped over the batch, and the jitted `mse_loss` is
#   differentiated with `jax.value_and_grad(..., has_aux=True)` on every batch; the
#   weights updated on the host (NumPy float64 from np.random.uniform and np.clip) enter
#   as float32 arrays of the same shapes, so nothing compiles again after the first epoch,
#   and the loss falls. Kept: model/lstm.py as written (the `Lstm` class, `forward`,
#   `forward_batch`, `mse_loss`) and the helpers it uses. Changed:
#   `from model.helper import *` -> the helper module's functions (sigmoid, tanh, softmax,
#   init_weights, mse) inlined. Added: a stand-in for the notebook's NYC taxi CSV files (a
#   noisy sine series of 700 points, normalized as the notebook does), the notebook's
#   generate_time_series_data, and the __main__ block with the notebook's hyperparameters
#   (five training epochs instead of 200).
# gap: other
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np


# activation functions
def softmax(x):
    '''softmax activation function'''
    exp_x = jnp.exp(x)
    return exp_x / jnp.sum(exp_x)


def sigmoid(x):
    '''sigmoid activation function'''
    return 1 / (1 + jnp.exp(-x))


def tanh(x):
    '''tanh activation function'''
    return (jnp.exp(x) - jnp.exp(-x)) / (jnp.exp(x) + jnp.exp(-x))


# matrix weight initialization
def init_weights(dim1, dim2=None):
    if dim2 is not None:
        A = np.random.uniform(-1, 1, size=(dim1, dim2))
    else:
        A = np.random.uniform(-1, 1, size=(dim1, 1))
    return A


# mse calculation
def mse(Y_true, Y_pred):
    squared_diff = (Y_pred - Y_true) ** 2
    err = jnp.mean(squared_diff, axis=1) 
    return jnp.mean(err)


# the forward and loss function are located outside the Lstm class to avoid jax conflicts
# LSTM forwarding
@jax.jit
def forward(params, states, X):
    Wf, bf, Wi, bi, Wc, bc, Wo, bo, Wy, by = params
    def step(prev_state, x):
        h_prev, c_prev = prev_state
        input = jnp.concatenate((h_prev, x))
        F = sigmoid(Wf @ input + bf)
        I = sigmoid(Wi @ input + bi)
        C = jnp.tanh(Wc @ input + bc)
        O = sigmoid(Wo @ input + bo)
        c = F * c_prev + I * C
        h = O * jnp.tanh(c)
        output = Wy @ h + by
        return (h, c), output
    states, outputs = jax.lax.scan(step, states, X[:, :, jnp.newaxis])
    # return states, outputs[:, :, 0]
    return states, outputs[-1, :, 0]
forward_batch = jax.vmap(forward, in_axes=(None, 0, 0))


# Mean Squared Error (MSE) loss function
@jax.jit
def mse_loss(params, states, X_batch, Y_batch):
    states, Y_batch_pred = forward_batch(params, states, X_batch)
    squared_diff = (Y_batch_pred - Y_batch) ** 2
    err = jnp.mean(squared_diff, axis=1) 
    loss_value = jnp.mean(err)
    return loss_value, states


class Lstm():
    def __init__(self, input_dim, hidden_dim, output_dim, 
                 num_epoches, learning_rate, batch_size):
        
        # initialize hyperparameters
        self.num_epoches = num_epoches
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.dimensions = [input_dim, hidden_dim, output_dim]
        
        # initialize forget, input, candidate, and output gate
        self.params = []
        for i in range(4):
            W = init_weights(hidden_dim, input_dim)
            b = jnp.zeros((hidden_dim, 1))
            self.params.extend([W, b])
        # initialize final gate
        self.params.append(init_weights(output_dim, hidden_dim))
        self.params.append(np.zeros((output_dim, 1)))
    
    
    def train_epoch(self, X, Y, num_batches, mode='TRAIN'):
        '''
        Training function for each epoch. 
        The parameter is only updated when model is in TRAINING mode.
        '''
        assert mode in ['TRAIN', 'EVAL'], f"{mode} mode is not recognized (use TRAIN / EVAL)!"
        epoch_losses = []
        # initialize state for each epoch
        states = (jnp.zeros((self.batch_size, self.dimensions[1], 1)), jnp.zeros((self.batch_size, self.dimensions[1], 1)))
        # training
        for batch in range(num_batches):
            # select batch training data 
            X_batch = X[batch * self.batch_size : (batch + 1) * self.batch_size]
            Y_batch = Y[batch * self.batch_size : (batch + 1) * self.batch_size]
            (loss, states), grads = jax.value_and_grad(mse_loss, has_aux=True)(self.params, states, X_batch, Y_batch)
            # update parameters
            if mode == 'TRAIN':
                self.params = [param - self.learning_rate * np.clip(grad, -1, 1) 
                               for param, grad in zip(self.params, grads)]
            epoch_losses.append(loss)
        return np.mean(epoch_losses)     

    def train(self, X_train, Y_train, X_val, Y_val):
        '''Overall training function'''
        print('Start training ...')
        N_train, N_val = X_train.shape[0], X_val.shape[0]
        num_train_batches, num_val_batches = N_train // self.batch_size, N_val // self.batch_size 
        # iterate epoches
        for i in range(self.num_epoches):
            train_loss = self.train_epoch(X_train, Y_train, num_train_batches, mode='TRAIN')
            val_loss = self.train_epoch(X_val, Y_val, num_val_batches, mode='EVAL')
            # display loss every 10 epoch
            if i % 10 == 0:
                print(f"Epoch {i+1}/{self.num_epoches}: training loss = {train_loss} | validation loss = {val_loss}")
        print('Training finished!')
    
    def predict(self, X_test):
        '''Predict the data at next time step given time series data'''
        # initialize state for each epoch
        states = (jnp.zeros((self.batch_size, self.dimensions[1], 1)), jnp.zeros((self.batch_size, self.dimensions[1], 1)))
        # batch training
        outputs = []
        for batch in range(X_test.shape[0] // self.batch_size):
            X_batch = X_test[batch * self.batch_size : (batch + 1) * self.batch_size]
            states, batch_outputs = forward_batch(self.params, states, X_batch)
            outputs.append(batch_outputs)
        return jnp.concatenate(outputs, axis=0)


def generate_time_series_data(df, n_timesteps):
    X_train, Y_train = [], []
    for i in range(0, df.shape[0]):
        if i + 2 * n_timesteps < df.shape[0]:
            X = df[i: i + n_timesteps]
            # Y = df[i + n_timesteps: i + 2 * n_timesteps]
            Y = df[i + n_timesteps]
            X_train.append(X)
            Y_train.append(Y)
    X_train, Y_train = jnp.array(X_train), jnp.array(Y_train)
    return X_train, Y_train


if __name__ == "__main__":
    from jax import monitoring

    compiles = [0]
    monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.__setitem__(0, compiles[0] + 1)
        if event == "/jax/core/compile/backend_compile_duration" else None)

    np.random.seed(0)
    # stand-in for the normalized taxi counts of one location
    t = np.arange(700)
    series = np.sin(2 * np.pi * t / 24) + 0.1 * np.random.randn(700)
    df_train = ((series - series.mean()) / series.std())[:, None]
    n_timesteps = 50
    X, Y = generate_time_series_data(df_train, n_timesteps)
    split_index = int(X.shape[0] * 0.8)
    X_train, Y_train, X_val, Y_val = X[:split_index], Y[:split_index], X[split_index:], Y[split_index:]

    num_features = 1
    input_dim, hidden_dim, output_dim = num_features + 4, 4, 1
    learning_rate = 0.05
    batch_size = 64
    model = Lstm(input_dim, hidden_dim, output_dim, 1, learning_rate, batch_size)
    num_batches = X_train.shape[0] // batch_size
    first = model.train_epoch(X_train, Y_train, num_batches, mode='TRAIN')
    model.train_epoch(X_val, Y_val, X_val.shape[0] // batch_size, mode='EVAL')
    after_first_epoch = compiles[0]
    model.num_epoches = 3
    model.train(X_train, Y_train, X_val, Y_val)
    last = model.train_epoch(X_train, Y_train, num_batches, mode='TRAIN')
    assert compiles[0] == after_first_epoch, (after_first_epoch, compiles[0])
    assert last < first, (first, last)
    preds = model.predict(X_val)
    assert preds.shape == (X_val.shape[0] // batch_size * batch_size, 1)
    assert np.isfinite(np.asarray(preds)).all()
    print("losses", first, last, "compiles", compiles[0])
