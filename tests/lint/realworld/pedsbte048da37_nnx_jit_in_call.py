# source: https://github.com/tonioeltopoquegira/PEDS_BTE/blob/048da37c2788fbdea07abcd5594897abc691be1a/models/peds.py (with models/mlp.py, models/model_utils.py predict, modules/training.py loss_and_grads/validate and modules/training_utils.py choose_activation at the same commit)
# observed on jax 0.10.2 CPU: PEDS.__call__ wraps its sub-modules in a fresh nnx.jit on every forward call; the training loop runs the model eagerly (only nnx.value_and_grad, no outer jit), so every batch of training and validation re-traces and re-compiles the generator and the weight net (the repo's training loop calls jax.clear_caches() every 50 epochs)
# gap: per-call-recompile
# stand-ins: lowfid (the low-fidelity Fourier/Gauss solver, here a mean over the grid) and conductivity_original_wrapper (here a fixed grid built from the pores); choose_activation keeps only the branches used
# renamed: `self.layers = [...]` is now `nnx.List([...])` (flax 0.12 rejects a plain list of modules on an nnx.Module)
# dropped: MPI reductions, plotting in predict, checkpointing; the loop below is train_model's loss_and_grads/validate without MPI
# observed: line 118 nnx.jit(self.generator, ...) is built anew in every PEDS.__call__; 2 epochs of 2 training + 1 validation batch trace the generator 6 times (once per forward call)
# observed: line 126 nnx.jit(self.wnn, ...) likewise traces the weight net 6 times in 6 forward calls
from flax import nnx
import jax.numpy as jnp
import jax
import numpy as np


# modules/training_utils.py
def hardtanh(x):
    """Hard tanh activation: max(-1, min(1, x))."""
    return jnp.clip(x, 1e-16, 160.0)


def choose_activation(activation, num_layers):
    activation_functions = []
    if activation == "relu":
        activation_functions = [nnx.relu] * num_layers
    elif activation == "hardtanh":
        activation_functions = [hardtanh] * num_layers
    elif activation == "sigmoid":
         activation_functions = [nnx.sigmoid]

    return activation_functions


def data_loader(*arrays, batch_size):
    n_samples = arrays[0].shape[0]
    indices = np.arange(n_samples)

    for start_idx in range(0, n_samples, batch_size):
        batch_indices = indices[start_idx:start_idx + batch_size]
        yield tuple(array[batch_indices] for array in arrays)


# stand-ins for solvers/low_fidelity_solvers
class lowfid:
    def __init__(self, solver, iterations):
        self.solver = solver
        self.iterations = iterations

    def __call__(self, conductivity):
        return jnp.mean(conductivity, axis=(1, 2))


def conductivity_original_wrapper(pores, resolution):
    base = jnp.where(pores > 0.5, 1e-16, 150.0).reshape(pores.shape[0], 5, 5)
    return jnp.repeat(jnp.repeat(base, resolution // 5, axis=1), resolution // 5, axis=2)


# models/mlp.py
class mlp(nnx.Module):

    def __init__(self, layer_sizes: list, activation: str, initialization: str, rngs: nnx.Rngs):
        super().__init__()


        if initialization == "he":
            dense_init = nnx.initializers.kaiming_normal()
        elif initialization == "xavier":
            dense_init = nnx.initializers.xavier_normal()

        bias_init = nnx.initializers.constant(0.0)

        self.layers = nnx.List([
            nnx.Linear(i, o, kernel_init=dense_init, bias_init=bias_init, rngs=rngs)
            for i, o in zip(layer_sizes[:-1], layer_sizes[1:])
        ])

        self.activations = choose_activation(activation, len(self.layers))


    def __call__(self, x, training=False):
        for en, (layer, activation_fn) in enumerate(zip(self.layers, self.activations)):
            x = layer(x)
            x = activation_fn(x)  # Apply the activation function for this layer

        return x


# models/peds.py
# An easy PEDS Wrapper
class PEDS(nnx.Module):

    def __init__(self, resolution:int, 
                adapt_weights: bool, learn_residual: bool, hidden_sizes:list, activation:str,
                solver:str, initialization:str, seed:int = 42):
        super().__init__()

        # 100 nanometers / step_size nanometer
        self.adapt_weights = adapt_weights
        self.resolution = resolution
        self.layer_sizes = [25] + hidden_sizes + [resolution**2]
        self.activation = activation
        self.learn_residual = learn_residual

        rng = jax.random.PRNGKey(seed)
        key = nnx.Rngs({'params': rng})

        if self.adapt_weights:
            self.wnn = mlp(layer_sizes=[25, 1], activation="sigmoid", rngs=key, initialization="he")
        self.generator = mlp(layer_sizes=self.layer_sizes, activation = activation, rngs=key, initialization=initialization) # 

        # Low Fidelity Solver
        self.lowfidsolver = lowfid(solver=solver, iterations=1000)

    def __call__(self, pores, training=False):
        batch_size = pores.shape[0]
        pores = jnp.reshape(pores, (batch_size, 25))

        # Run the generator
        conductivity_generated_raw = nnx.jit(self.generator, static_argnames=("training",))(pores, training)  # expect: JIT301
        conductivity_generated_raw = jnp.reshape(conductivity_generated_raw, (batch_size, self.resolution, self.resolution))

        conductivity_generated = conductivity_generated_raw  # default to raw unless residual is applied

        if self.learn_residual:
            conductivities = conductivity_original_wrapper(pores, self.resolution)
            if self.adapt_weights:
                w = nnx.jit(self.wnn, static_argnames=("training",))(pores, training)  # expect: JIT301
                w1 = jnp.expand_dims(w, -1)
                conductivity_generated_raw = w1 * conductivity_generated_raw

                w2 = 1 - w1
                conductivities = w2 * conductivities

            conductivity_generated = conductivities + conductivity_generated_raw

        if self.activation == "relu":
            conductivity_generated = jnp.maximum(conductivity_generated, 1e-16)

        kappa = self.lowfidsolver(conductivity_generated)

        return kappa, conductivity_generated_raw  # <- return only what the NN generated


# models/model_utils.py
def predict(model, pores, training=False, **kwargs):

    conductivity_generated = None
    kappa_var = None

    if isinstance(model, PEDS):
        kappa_mean, conductivity_generated = model(pores, training)

    return kappa_mean, kappa_var


# modules/training.py (inner functions of train_model, without MPI)
def loss_and_grads(model, batch_local):
    pores, kappas = batch_local

    def loss_fn(model):
        kappa_pred, kappa_var = predict(model, pores, training=True)
        residuals = kappa_pred - kappas
        return jnp.sum(residuals**2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)

    return loss, grads


def validate(model, dataset, batch_size, valid_size):
    total_val_loss, total_error_perc = 0.0, 0.0

    for val_pores, val_kappas in data_loader(*dataset, batch_size=batch_size):
        kappa_val, kappa_var = predict(model, val_pores)
        local_res = (kappa_val - val_kappas)**2
        local_error = jnp.abs(kappa_val - val_kappas) * 100.0 / jnp.abs(val_kappas)
        total_val_loss += jnp.sum(local_res)
        total_error_perc += jnp.sum(local_error)

    return total_val_loss / valid_size, total_error_perc / valid_size


if __name__ == "__main__":
    import optax

    traces = {}
    _orig_call = mlp.__call__

    def _counting_call(self, x, training=False):
        # nnx.jit hands the call a merged copy of the module, so count by output width
        name = "generator" if self.layers[-1].out_features == 100 else "wnn"
        traces[name] = traces.get(name, 0) + 1
        return _orig_call(self, x, training)

    mlp.__call__ = _counting_call

    model = PEDS(resolution=10, adapt_weights=True, learn_residual=True, hidden_sizes=[16],
                 activation="relu", solver="gauss", initialization="he")
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

    rs = np.random.RandomState(0)
    pores = rs.randint(0, 2, size=(12, 5, 5)).astype(np.float32)
    kappas = rs.uniform(5.0, 50.0, size=(12,)).astype(np.float32)
    dataset_train = (pores[:8], kappas[:8])
    dataset_test = (pores[8:], kappas[8:])
    batch_size = 4
    epochs = 2

    for epoch in range(epochs):
        grads = None
        for batch_local in data_loader(*dataset_train, batch_size=batch_size):
            loss, g = loss_and_grads(model, batch_local)
            grads = g if grads is None else jax.tree_util.tree_map(lambda a, b: a + b, grads, g)
        optimizer.update(model, grads)
        validate(model, dataset_test, batch_size, dataset_test[0].shape[0])

    n_calls = epochs * (2 + 1)  # 2 train batches + 1 validation batch per epoch
    gen_traces = traces["generator"]
    wnn_traces = traces["wnn"]
    print("forward calls:", n_calls, "generator traces:", gen_traces, "wnn traces:", wnn_traces)
    # a jitted module with unchanged shapes should be traced about once per distinct signature (train / eval);
    # here every forward call traces again
    assert gen_traces == n_calls, gen_traces
    assert wnn_traces == n_calls, wnn_traces
    print("OK: nnx.jit(self.generator)(...) and nnx.jit(self.wnn)(...) re-trace on every forward call")
