# source: https://github.com/moritz-laber/neural-ode-generalization/blob/9e6cb654f26ae7c1e4db93996a5c047125824464/trainers.py
#   (data_loader, train_neural_ode and generate_samples; with Linear, MLP, FactorizedNetworkDynamics and ODESolve of
#   models.py, sis_model of dynamics.py, edges_to_adjacency of graphs.py and the set-up of
#   train_neural_ode.py, same commit)
# observed on jax 0.10.2 CPU (equinox 0.13.8, diffrax 0.7.2, optax 0.2.8): runs clean. The
#   author's later trainer (compare L-MoNi/ml_and_dynamics trainers.py) builds one optimizer
#   before the schedule loop, so the eqx.filter_jit `step` closes over a name that is bound
#   once, before step is first called; each phase of the schedule splits a fresh loader key
#   from `key`, and data_loader splits the key it permutes with off the key it carries on
#   with. Each phase's first batch differs from the other's, the two phases (different time
#   windows) trace step once each, and every later step hits the cache.
# gap: stale-state-attributes
# added/changed: `from models import *` etc. inlined, only what train_neural_ode.py uses;
#   the pickled training graph is replaced by a ring of 8 nodes; the script's module-level
#   driver is moved into the __main__ block at a small size (8 nodes, 16 timesteps, 16
#   samples, batch 4, two 3-step phases instead of one 3e5-step phase, no checkpoints), which
#   records each phase's first batch and counts traces of `step` in JAX's compile log.
import jax
import jax.numpy as jnp
from jax.random import PRNGKey
from jax.typing import ArrayLike
from jax.experimental import sparse

import diffrax as dfx
import equinox as eqx
import optax as otx

from typing import List, Tuple, Dict, Callable, Any
from tqdm import tqdm


### models.py ###
class Linear(eqx.Module):

    w : ArrayLike
    b : ArrayLike

    def __init__(self, key:PRNGKey, shape:Tuple[int], scale:float=2.0) -> None:
        # define input and output dimension
        dim_in, dim_out = shape

        # initialize the weights using Kaiming initialization
        self.w = jax.random.normal(key=key, shape=(dim_in, dim_out))*jnp.sqrt(scale/dim_in)

        # initialize the biases to zero
        self.b = jnp.zeros(shape=(dim_out,))

    def __call__(self, x:ArrayLike):
        # affine transformation
        return (x @ self.w) + self.b

class MLP(eqx.Module):

    layers : List
    activation : Callable

    def __init__(self, key:PRNGKey, dims:List, activation:Callable=jax.nn.selu, scale:int=2.0) -> None:
        self.layers = []
        for i in range(len(dims) - 1):

            # initialize the linear transformations
            key, key_ = jax.random.split(key)
            self.layers.append(Linear(key_, shape=(dims[i], dims[i+1]), scale=scale))

        # set the activation function
        self.activation = activation

    def __call__(self, t, x:ArrayLike, args) -> ArrayLike:
        x = jnp.asarray(x)

        for linear in self.layers[:-1]:

            # affine transformation
            x = linear(x)

            # non-linearity
            x = self.activation(x)

        # affine transformation in the last layer. No activation
        x = self.layers[-1](x)

        return x

class FactorizedNetworkDynamics(eqx.Module):

    f : eqx.Module | Callable
    h_ego : eqx.Module | Callable
    h_alt : eqx.Module | Callable

    def __init__(self, f: eqx.Module | Callable, h_ego: eqx.Module | Callable, h_alt: eqx.Module | Callable) -> None:
        self.f = f
        self.h_ego = h_ego
        self.h_alt = h_alt

    def __call__(self, t:float, y:jnp.ndarray, args:Tuple[Tuple, Tuple, Tuple, sparse.BCOO]) -> jnp.ndarray:
        pars_f, pars_h_ego, pars_h_alt, A = args

        if len(y.shape) == 1:
            y = y[None]

        fi = jax.vmap(self.f, in_axes=(None, 1, None))(t, y, pars_f).squeeze()
        hi = jax.vmap(self.h_ego, in_axes=(None, 1, None))(t, y, pars_h_ego).squeeze()
        hj = jax.vmap(self.h_alt, in_axes=(None, 1, None))(t, y, pars_h_alt).squeeze()

        return fi + hi * (hj @ A)

class ODESolve(eqx.Module):

    vec : eqx.Module | Callable
    solver : Callable
    rtol : float
    atol : float
    dt0 : float

    def __init__(self, vec:Callable, hyper_params:Dict) -> None:
        self.vec = vec
        self.solver = hyper_params['solver']
        self.rtol = hyper_params['rtol']
        self.atol = hyper_params['atol']
        self.dt0 = hyper_params['dt0']


    def __call__(self, ts, y0, args):
        terms = dfx.ODETerm(self.vec)
        saveat = dfx.SaveAt(ts=ts)
        stepsize_controller = dfx.PIDController(rtol=self.rtol, atol=self.atol)

        solution = dfx.diffeqsolve(
            terms=terms,
            solver=self.solver,
            t0=ts[0],
            t1=ts[-1],
            dt0=self.dt0,
            y0=y0,
            args=args,
            saveat=saveat,
            stepsize_controller=stepsize_controller,
            max_steps=8192
        )

        return solution.ys


### dynamics.py ###
sis_model = FactorizedNetworkDynamics(
    f = lambda t, y, par : -par[0] * y,
    h_ego = lambda t, y, par : 1. - y,
    h_alt = lambda t, y, par : par[0] * y
)


### graphs.py ###
def edges_to_adjacency(n:int, edges:List[Tuple[int]], directed:bool=False, use_jax:bool=True):
    # determine the number of edges
    m = len(edges)

    # convert to sparse adjacency matrix
    edges = jnp.asarray(edges)
    A = sparse.BCOO((jnp.ones(m), edges), shape=(n,n))

    # make the network undirected
    if not directed:
        A = A + A.T

    return A


### trainers.py ###
def data_loader(key:PRNGKey, ys:ArrayLike, batch_size:int) -> ArrayLike:
    # extract the size of the data
    n_samples, n_timesteps, n_nodes = ys.shape

    # construct an index along the batch dimension
    batch_index = jnp.arange(n_samples)

    # allows for infinite looping over the data
    while True:

        # shuffle along the batch dimension
        key_, key = jax.random.split(key)
        permutation = jax.random.permutation(key_, n_samples)

        # initialize counters to know when one pass over the data
        # is over
        batch_start = 0
        batch_end = batch_size

        while batch_end < n_samples:

            # select the next batch of trajectories
            selected_batches = permutation[batch_start:batch_end]

            yield ys[selected_batches, :, :]

            # update counters
            batch_start += batch_size
            batch_end += batch_size

def train_neural_ode(key:PRNGKey, model:eqx.Module, ts:jnp.ndarray, ys:jnp.ndarray, args:Tuple[Tuple, Tuple, Tuple, sparse.BCOO], hyper_params:Dict[str, Any])-> Tuple[eqx.Module, List[float]]:

    @eqx.filter_value_and_grad
    def loss_val_grad(model, ts, ys, args):

        ypred = jax.vmap(model, in_axes=(None, 0, None))(ts, ys[:, 0, :], args)

        loss_val = jnp.power(jnp.mean(jnp.power(ys - ypred, 2.)), 1./2.)

        return loss_val

    @eqx.filter_jit
    def step(state, model, ts, ys, args):

        # calculate gradients and loss at the current step
        loss_val, grads = loss_val_grad(model, ts, ys, args)

        # calculate the parameter updates
        updates, state = optimizer.update(grads, state, model)

        # apply the updates to the model
        model = eqx.apply_updates(model, updates)

        return state, model, loss_val

    # training loop
    loss_list = []

    # initialize the optimizer
    optimizer = hyper_params['optimizer']
    state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))

    for n_steps, trange in hyper_params['training_schedule']:

        key, key_ = jax.random.split(key)
        loader = data_loader(key_, ys, batch_size=hyper_params['batch_size'])

        for i, ybatch in tqdm(zip(range(n_steps), loader)):

            # take a step in the optimization process and store the loss
            state, model, loss_val = step(state, model, ts[trange[0]: trange[1]], ybatch[:, trange[0]:trange[1], :], args)
            loss_list.append(loss_val.item())

            if i in hyper_params['checkpoints']:

                eqx.tree_serialise_leaves(f"{hyper_params['checkpoint_path']}model_step_{i}.eqx", model)

    return model, loss_list

def generate_samples(key:PRNGKey, n_samples:int, ts:jnp.ndarray, y0bounds:Tuple[float, float], ode_solve:eqx.Module, pars:Tuple[Tuple, Tuple, Tuple, sparse.BCOO])-> Tuple[jnp.ndarray, jnp.ndarray]:
    # unpack initial conditions
    y0min, y0max = y0bounds

    # determine number of nodes
    n = pars[-1].shape[0]

    # sample initial conditions
    key, key_= jax.random.split(key)
    y0 = jax.random.uniform(key_, minval=y0min, maxval=y0max, shape=(n_samples, n))

    # solve ODE
    ys = jax.vmap(ode_solve, in_axes=(None, 0, None))(ts, y0, pars)

    return y0, ys


if __name__ == "__main__":
    import logging

    traces = []

    class _Traces(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("Finished tracing step"):
                traces.append(record)

    logging.getLogger("jax").addHandler(_Traces())
    logging.getLogger("jax").setLevel(logging.DEBUG)
    jax.config.update("jax_log_compiles", True)

    n = 8
    t0, t1, n_timesteps, n_samples = 0, 1., 16, 16
    pars_f, pars_h_ego, pars_h_alt = (1.0,), (None,), (1.2,)
    y0min, y0max = 0., 0.5
    scale, seed_jax, learning_rate, batch_size = 1e-2, 121, 1e-3, 4
    layers = [1, 16, 1]
    solver_params = {'solver': dfx.Dopri5(), 'atol': 1e-4, 'rtol': 1e-4, 'dt0': 1e-5}
    trainer_params = {
        'optimizer': otx.adagrad(learning_rate),
        'batch_size': batch_size,
        'training_schedule': [(3, (0, n_timesteps)), (3, (0, n_timesteps // 2))],
        'checkpoints': [],
        'checkpoint_path': '',
    }

    key = jax.random.PRNGKey(seed_jax)
    key, key_model, key_data, key_training = jax.random.split(key, 4)
    A = edges_to_adjacency(n, [(i, (i + 1) % n) for i in range(n)])

    ts = jnp.linspace(t0, t1, n_timesteps)
    solve_dynamics = ODESolve(sis_model, solver_params)
    pars = (pars_f, pars_h_ego, pars_h_alt, A)

    key_train, key_noise = jax.random.split(key_data)
    y0_train, ys_train = generate_samples(
        key_train,
        n_samples,
        ts,
        (y0min, y0max),
        solve_dynamics,
        pars
    )

    key1, key2, key3 = jax.random.split(key_model, 3)
    neural_ode = FactorizedNetworkDynamics(
        f=MLP(key1, layers, scale=scale),
        h_ego=MLP(key2, layers, scale=scale),
        h_alt=MLP(key3, layers, scale=scale),
    )
    solve_nODE = ODESolve(neural_ode, solver_params)

    original_loader = data_loader
    first_batches = []

    def data_loader(key, ys, batch_size):
        it = original_loader(key, ys, batch_size)
        batch = next(it)
        first_batches.append(batch)
        yield batch
        yield from it

    solve_nODE, loss_list = train_neural_ode(
        key_training,
        solve_nODE,
        ts,
        ys_train,
        ((None,), (None,), (None,), A),
        trainer_params
    )
    assert len(loss_list) == 6 and all(jnp.isfinite(jnp.array(loss_list)))
    # each phase draws its own shuffle
    assert len(first_batches) == 2
    assert not bool(jnp.all(first_batches[0] == first_batches[1]))
    # one trace per time window: the 6 steps of the two phases trace step twice
    assert len(traces) == 2, len(traces)

    # data_loader carries on with the half of the split it did not permute with: two epochs
    # of a typed key under the key-reuse checker raise nothing
    with jax.debug_key_reuse(True):
        it = original_loader(jax.random.key(3), ys_train, batch_size)
        for _ in range(2 * (n_samples // batch_size)):
            next(it)
