# source: https://github.com/L-MoNi/ml_and_dynamics/blob/0053e2f8ae5f2e9f6cddfe3a135b9cdf72c96b3e/trainers.py
#   (classifier_train; with Linear, MLP and NeuralODE of models.py and classification_loader of
#   data_handlers.py, same commit; the schedule and sizes of neuralODE.ipynb's moons cells)
# observed on jax 0.10.2 CPU (equinox 0.13.8, diffrax 0.7.2, optax 0.2.8): three bugs, all silent.
#   classifier_train's eqx.filter_jit `step` reads the closed-over `optimizer`, which the
#   schedule loop rebinds to tx.adam(learning_rate=lr) for every phase; the batches keep their
#   shapes, so the second phase reuses the first phase's trace and its learning rate: with the
#   notebook's schedule [(.., 0.006), (.., 0.003)] the second phase's first Adam step moves the
#   weights by 0.006, not 0.003. Every phase also hands the same `key` to a new
#   classification_loader, so the second phase shuffles the data exactly as the first did (equal
#   first batches). And classification_loader splits, at the start of each epoch, the key the
#   previous epoch's jr.permutation consumed: with a typed key under jax.debug_key_reuse(True)
#   the second epoch raises KeyReuseError at that split. Run with PRNGKey made typed and
#   jax_debug_key_reuse on, JAX's checker first names line 136 (the harness's second run of
#   classifier_train with the same shuffle_key, lines 226 and 246, replays the run on purpose).
# gap: stale-state-attributes
# added/changed: the trajectory parts (generate_trajectories, trajectory_loader,
#   trajectory_train) are left out; the notebook's sklearn make_moons data is replaced by 64
#   random points with random labels (sklearn is not installed); `from models import *` etc.
#   are inlined into one file; the imports the files share are merged; the __main__ block is
#   added (2-step phases instead of 2000).
import jax
import jax.numpy as jnp
import jax.random as jr
from jax.typing import ArrayLike
import equinox as eqx
import optax as tx
import diffrax as dfx
import numpy as np
from typing import List, Tuple, Callable
from tqdm import tqdm


### MODELS (models.py) ###

class Linear(eqx.Module):

    weights : ArrayLike
    bias    : ArrayLike

    def __init__(self, shape:Tuple[int], *, key:jr.PRNGKey) -> None:
        # define input and output dimension
        dim_in, dim_out = shape

        # initialize the weights using Kaiming initialization
        self.weights = jr.normal(shape=(dim_in, dim_out), key=key)*np.sqrt(2.0/dim_in)

        # initialize the biases to zero
        self.bias = jnp.zeros(dim_out)


    def __call__(self, x:ArrayLike):
        jnp.asarray(x)

        # affine transformation
        return jnp.dot(x, self.weights) + self.bias

class MLP(eqx.Module):

    layers : List
    depth : int
    activation : Callable

    def __init__(self, dims:List, activation:Callable=jax.nn.selu, *, key:jr.PRNGKey) -> None:
        # determine the number of layers
        self.depth = len(dims) - 1

        # get keys for initialization
        init_keys = jr.split(key, self.depth)

        self.layers = []
        for i in range(self.depth):

            self.layers.append(Linear((dims[i],dims[i+1]), key=init_keys[i]))

        # set the activation function
        self.activation = activation

    def __call__(self,t:ArrayLike, x:ArrayLike, args:List) -> ArrayLike:
        x = jnp.asarray(x)

        for i in range(self.depth - 1):

            x = self.layers[i](x)
            x = self.activation(x)

        x = self.layers[1](x)

        return x

class NeuralODE(eqx.Module):

    vector_field : eqx.Module

    def __init__(self, dims:List, *, key=jr.PRNGKey) -> None:
        # initialize the MLP that parameterizes the ODEs vector field.
        self.vector_field = MLP(dims, key=key)

    def __call__(self, ts:ArrayLike, y0:ArrayLike) -> ArrayLike:
        # Hard coded parameters
        REL_TOL = 1e-3   # relative tolerance
        ABS_TOL = 1e-6   # absolute tolerance
        MAX_STEPS = 8192 # maximum number of iterations


        adaptive_stepsize = dfx.PIDController(rtol=REL_TOL,
                                              atol=ABS_TOL)

        solution = dfx.diffeqsolve(
            dfx.ODETerm(self.vector_field), # vector field
            dfx.Dopri5(),                   # solver: Dormand Prince 5(4)
            t0=ts[0],                       # start solving at t0
            t1=ts[-1],                      # stop solving at t1
            dt0=ts[1] - ts[0],              # first choice of time step
            y0=y0,                          # initial conditions
            max_steps=MAX_STEPS,            # maximum number of iterations
            saveat=dfx.SaveAt(ts=ts),       # return the solution at these timepoints
            stepsize_controller=adaptive_stepsize,  # adaptive stepsize
        )

        return solution.ys


### FOR TRAINING ON CLASSIFICATION (data_handlers.py) ###

def classification_loader(ys:ArrayLike, labels:ArrayLike, batch_size:int, * , key:jr.PRNGKey) -> ArrayLike:
    assert ys.shape[0] == labels.shape[0]

    n_samples = ys.shape[0]             # the total number of samples in the dataset
    index = jnp.arange(n_samples)       # inex into the the samples and labels

    # makes this a (stochastic) generator that can be repeatedly cycled through
    while True:

        # shuffle the index of the dataset
        (key, _) = jr.split(key, 2)  # expect: JIT502
        permutation = jr.permutation(key, index)

        batch_start = 0
        batch_end = batch_size

        while batch_start < n_samples:

            # select batch_size trajectories uniformly at random
            selected = permutation[batch_start:batch_end]
            yield (ys[selected], labels[selected])

            # update counters
            batch_start += batch_size
            batch_end += batch_size


### TRAINING FOR CLASSIFICATION (trainers.py) ###
def classifier_train(model:eqx.Module, dataset:Tuple[ArrayLike], schedule: List[Tuple], batch_size:int, *, key:jr.PRNGKey) -> eqx.Module:

    @eqx.filter_value_and_grad
    def loss_val_grad(model, t, y, labels):

        # solve the ode starting at the dataset points
        ypred = jax.vmap(model, in_axes=(None,0))(t, y)

        # use non-learnable projection on the y axis
        # TODO: integrate learnable projection into the model.
        logits = ypred[:, -1, -1]

        # calculate the binary cross-entropy loss
        loss_val = jnp.mean(tx.sigmoid_binary_cross_entropy(logits=logits, labels=labels))

        return loss_val

    @eqx.filter_jit
    def step(model, t, y, labels, state):

        # calculate gradients and loss at the current step
        loss_val, grads = loss_val_grad(model, t, y, labels)

        # calculate the parameter updates
        updates, state = optimizer.update(grads, state)  # expect: JIT201

        # apply the updates to the model
        model = eqx.apply_updates(model, updates)

        return model, loss_val, state

    # unpack the dataset
    ts, ys, labels = dataset

    # training loop
    loss_list = []
    for n_steps, lr in schedule:

        # initialize the optimizer
        optimizer = tx.adam(learning_rate=lr)
        state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))

        for _, batch in tqdm(zip(range(n_steps), classification_loader(ys, labels, batch_size, key=key))):  # expect: JIT502

            # unpack batch
            y_batch, label_batch = batch

            # take a step in the optimization process and store the loss
            model, loss_val, state = step(model, ts, y_batch, label_batch, state)
            loss_list.append(loss_val)


    return model, loss_list


if __name__ == "__main__":
    import sys
    import traceback

    dims = [2, 64, 2]
    batch_size = 32
    key = jr.PRNGKey(seed=1729)
    params_key, shuffle_key = jr.split(key, 2)
    points = jr.normal(jr.PRNGKey(0), (64, 2))
    labels = (points[:, 0] > 0).astype(jnp.float32)
    ts = jnp.array([0., 1.])

    nde = NeuralODE(dims, key=params_key)
    w0 = nde.vector_field.layers[0].weights

    # one step at lr 0.006, then one step of a new phase at lr 0.003
    nde1, _ = classifier_train(nde, (ts, points, labels), [(1, 0.006)], batch_size, key=shuffle_key)
    nde2, _ = classifier_train(nde, (ts, points, labels), [(1, 0.006), (1, 0.003)], batch_size, key=shuffle_key)  # tolerate: JIT502
    w1 = nde1.vector_field.layers[0].weights
    w2 = nde2.vector_field.layers[0].weights
    first = float(jnp.max(jnp.abs(w1 - w0)))
    second = float(jnp.max(jnp.abs(w2 - w1)))
    # observed: line 178 reads the `optimizer` of the first phase: the second phase's first Adam
    #   step (lr 0.003) moves the weights by 0.006, as the first phase's did
    assert abs(first - 0.006) < 1e-4, first
    assert abs(second - 0.006) < 1e-4, second

    original_loader = classification_loader
    first_batches = []

    def classification_loader(ys, labels, batch_size, *, key):
        it = original_loader(ys, labels, batch_size, key=key)
        batch = next(it)
        first_batches.append(batch[0])
        yield batch
        yield from it

    classifier_train(nde, (ts, points, labels), [(1, 0.006), (1, 0.003)], batch_size, key=shuffle_key)  # tolerate: JIT502
    # observed: line 196 gives every phase the same key: both phases start with the same batch
    assert len(first_batches) == 2
    assert (first_batches[0] == first_batches[1]).all()

    classification_loader = original_loader
    error_line = None
    with jax.debug_key_reuse(True):
        try:
            it = classification_loader(points, labels, batch_size, key=jr.key(5))
            for _ in range(3):  # two batches per epoch: the third starts the second epoch
                next(it)
        except jax.errors.KeyReuseError:
            frames = [f for f in traceback.extract_tb(sys.exc_info()[2])
                      if f.filename == __file__]
            error_line = frames[-1].lineno
    # observed: line 136 splits, for the second epoch, the key the first epoch's permutation
    #   consumed (KeyReuseError)
    assert error_line == 136, error_line
