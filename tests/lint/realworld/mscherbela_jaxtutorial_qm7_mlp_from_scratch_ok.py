# source: https://github.com/MScherbela/jax_tutorial/blob/3e896d91c22f6238666e7a4bb87adef0ca2a3ffd/03_neural_net_from_scratch.ipynb
# observed on jax 0.10.2 CPU: runs clean: the jitted training step and evaluation branch on
#   the Python layer index against len(params) of the list of (weights, bias) tuples, read
#   the module constants mean_y and scale_y (set once from the training data), and take
#   batches cut by NumPy outside jit; one compilation per batch shape. Kept: code cells
#   7-15 as written. Changed: jax.tree_map -> jax.tree.map. Stand-ins: the QM7 CSV the
#   notebook downloads is replaced by 600 random symmetric 23x23 matrices with a target
#   made from their eigenvalues (n_train 6000 -> 400), n_epochs 100 -> 5; matplotlib
#   cells are left out and the __main__ block is added.
# gap: stale-state-attributes
import numpy as np
import jax.numpy as jnp
import jax
np.random.seed(1234)

# stand-in for data = pd.read_csv(".../data/qm7.csv")
_A = np.random.normal(size=(600, 23, 23))
X = (_A + _A.transpose(0, 2, 1)) / 2
Y = -1000.0 + 50.0 * np.linalg.eigvalsh(X)[:, -1]
n_train = 400
ind = np.random.permutation(len(X))
X_train, X_test = np.split(X[ind], [n_train])
y_train, y_test = np.split(Y[ind], [n_train])

mean_y = np.mean(y_train)
scale_y = np.std(y_train)

def calculate_input_features(x):
    return jnp.linalg.eigvalsh(x)

def mlp(params, x):
    for ind_layer, (weights, bias) in enumerate(params):
        x = x @ weights + bias
        if ind_layer != (len(params) - 1):
            x = jax.nn.relu(x)
    return x

def model(params, x):
    x = calculate_input_features(x)
    y = mlp(params, x)
    y = y * scale_y + mean_y
    return y.flatten()

def init_mlp(n_neurons, input_dim, output_dim):
    dims_in = [input_dim] + n_neurons
    dims_out = n_neurons + [output_dim]
    params = []
    for dim_in, dim_out in zip(dims_in, dims_out):
        w_init = np.random.normal(loc=0, scale=2/(dim_in + dim_out), size=(dim_in, dim_out))
        b_init = np.zeros(shape=(dim_out,))
        params.append((w_init, b_init))
    return params

# Define a loss function and an optimizer / training-step
def loss_func(params, x, y_target):
    y_pred = model(params, x)
    residual = (y_pred - y_target) / scale_y
    return jnp.mean(residual**2)

@jax.jit # equivalent to training_step = jax.jit(training_step)
def training_step(params, batch, learning_rate):
    x, y_target = batch
    loss, grad = jax.value_and_grad(loss_func, argnums=0)(params, x, y_target)

    # Because the grad and params are nested data structures we cannot directly work with them
    # (e.g. new_params = params - learning_rate * grad), but need to
    param_update = jax.tree.map(lambda g: -learning_rate * g, grad)
    new_params = jax.tree.map(jnp.add, params, param_update)
    return loss, new_params

def make_batches(x, y, batch_size):
    indices = np.random.permutation(len(x))
    x = x[indices]
    y = y[indices]
    for k in range(0, len(x), batch_size):
        yield x[k:k+batch_size], y[k:k+batch_size]

@jax.jit
def evaluate_model(params, X, y_target):
    y_pred = model(params, X)
    return y_pred, jnp.mean(jnp.abs(y_pred - y_target))

# Initialize the network and run the actual training
n_neurons_per_layer = [50, 50, 20]
learning_rate = 0.02
batch_size = 200
n_epochs = 5
params = init_mlp(n_neurons_per_layer, input_dim=X_train.shape[-1], output_dim=1)
params_averaged = params

mae_test = np.zeros(n_epochs)
mae_train = np.zeros(n_epochs)
loss = np.zeros(n_epochs * n_train // batch_size)
ind_step = 0
for ind_epoch in range(n_epochs):
    for batch in make_batches(X_train, y_train, batch_size):
        loss[ind_step], params = training_step(params, batch, learning_rate)
        ind_step += 1
    y_pred_train, mae_train[ind_epoch] = evaluate_model(params, X_train, y_train)
    y_pred_test, mae_test[ind_epoch] = evaluate_model(params, X_test, y_test)
    if (ind_epoch % 5) == 0:
        print(f"epoch={ind_epoch:<3d}, mae_train={mae_train[ind_epoch]:.1f} kcal/mol, mae_test={mae_test[ind_epoch]:.1f} kcal/mol")

# Analyze final model
print(f"Mean absolute error (MAE) on training set: {mae_train[-1]:.1f} kcal/mol")
print(f"Mean absolute error (MAE) on test set   : {mae_test[-1]:.1f} kcal/mol")

if __name__ == "__main__":
    y_eager = model(params, X_test)
    y_jit, _ = evaluate_model(params, X_test, y_test)
    assert jnp.allclose(y_eager, y_jit, rtol=1e-4)
    assert np.all(np.isfinite(loss[:ind_step]))
