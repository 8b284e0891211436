# source: https://github.com/alonfnt/bayex/blob/b7f138af63a702da33b5d3c30d4c9d54a36bdca6/bayex/optim.py
#   (with bayex/gp.py and bayex/acq.py at the same commit, "Update code to work with current
#   jax (#26)"; optim has drawn the initial points and seeded suggest_next from one key
#   since the first implementation of optim.py)
# observed on jax 0.10.2 CPU: optim draws the n_init initial points with
#   `random.uniform(key, ...)` and then hands the same key to suggest_next, whose
#   `random.split(key, 2)` makes the key of the 1000 seed points of the first acquisition
#   search: the initial design and the first search both come from the one key.
#   Kept: gp.py from GParameters on, acq.py from ACQ on and optim.py from
#   OptimizerParameters on, as in the files, in that order; the three modules' imports merged
#   (bayex.types's `Array = Any` inlined), `from jax import tree_map` spelled
#   `from jax.tree_util import tree_map` and `jnp.clip(..., a_min=, a_max=)` spelled
#   `min=`, `max=` (the old names no longer exist); added: the __main__ block, which runs
#   optim on a small quadratic and records the key suggest_next receives.
# gap: cross-module
from collections import namedtuple
from enum import Enum
from functools import partial
from typing import Any, Callable, NamedTuple, Optional, Tuple, Union

import jax.numpy as jnp
from jax import grad, jacrev, jit, lax, random, tree_util, vmap
from jax.scipy.linalg import cholesky, solve_triangular
from jax.scipy.stats import norm
from jax.tree_util import tree_map

Array = Any

GParameters = namedtuple("GParameters", ["noise", "amplitude", "lengthscale"])
DataTypes = namedtuple("DataTypes", ["integers"])


def cov(k: Callable, x1: Array, x2: Array = None) -> Array:
    """
    Computes the covariance matrix of the given kernel with the given points.
    """
    if x2 is None:
        return vmap(lambda x: vmap(lambda y: k(x, y))(x1))(x1)
    else:
        return vmap(lambda x: vmap(lambda y: k(x, y))(x1))(x2).T


def softplus(x: Array) -> Array:
    return jnp.logaddexp(x, 0.0)


def exp_quadratic(x1: Array, x2: Array, ls: Array) -> Array:
    return jnp.exp(-jnp.sum((x1 - x2) ** 2 / ls ** 2))


def round_integers(arr: Array, dtypes: Union[DataTypes, None]) -> Array:
    """
    The input variables corresponding to an integer-valued input variable are
    rounded to the closest integer value.
    """
    if dtypes is None:
        return arr

    indexes = dtypes.integers
    for idx in indexes:
        arr = arr.at[:,idx].set(jnp.round(arr[:, idx]))
    return arr


def gaussian_process(
    params: GParameters,
    x: Array,
    y: Array,
    dtypes: Optional[DataTypes] = None,
    xt: Array = None,
    compute_ml: bool = False,
) -> Any:
    """
    Base function that deals with the Gaussian Processes.
    """
    # Number of points in the prior distribution
    n = x.shape[0]

    # Rounding integer values before computing the covariance matrices.
    x = round_integers(x, dtypes)

    noise, amp, ls = tree_util.tree_map(softplus, params)
    kernel = partial(exp_quadratic, ls=ls)

    # Normalization of measurements
    ymean = jnp.mean(y)
    y = y - ymean

    # Covariance matrix K[X,X] with noise measurements
    K = amp * cov(kernel, x) + (jnp.eye(n) * (noise + 1e-6))

    # In order to compute the inverse of K, i.e K^-1, we make use of Cholesky
    # factorization K = LxL^T to improve performance on the solving.
    L = cholesky(K, lower=True)
    K_inv_y = solve_triangular(L.T, solve_triangular(L, y, lower=True))

    if compute_ml:
        # Compute the marginal likelihood using its closed form:
        # log(P) = - 0.5 yK^-1y - 0.5 |K-sigmaI| - n/2 log(2pi)
        fitting = y.T.dot(K_inv_y)

        # Compute the determinant using the Lower Diagonal Factorization
        # since it makes it only the diagonal multiplication (sum of logs)
        penalty = 2.0 * jnp.sum(jnp.log(jnp.diag(L)))

        ml = -0.5 * jnp.sum(fitting + penalty + n * jnp.log(2.0 * jnp.pi))

        # Add the amplitude hyperparameter to the marginal likelihood
        ml += 0.5 * jnp.log(2.0 * jnp.pi) + jnp.log(amp.reshape()) ** 2
        return -ml

    if xt is not None:
        xt = round_integers(xt, dtypes)

    # Compute the covariance with the new point xt
    K_cross = amp * cov(kernel, x, xt)

    # Return the mean and standard devition of the Gaussian Proceses
    mean = jnp.dot(K_cross.T, K_inv_y) + ymean
    v = solve_triangular(L, K_cross, lower=True)
    var = amp * cov(kernel, xt) - jnp.dot(v.T, v)
    std = jnp.sqrt(var) if n == 1 else jnp.diag(var)
    return mean, std


marginal_likelihood = partial(gaussian_process, compute_ml=True)
grad_fun = jit(grad(marginal_likelihood))
predict = jit(partial(gaussian_process, compute_ml=False))


@jit
def train(
    x: Array,
    y: Array,
    params: GParameters,
    momentums: GParameters,
    scales: GParameters,
    dtypes: DataTypes,
    lr: float = 0.01,
    nsteps: int = 20,
) -> Tuple[GParameters, GParameters, GParameters]:
    """
    Training function of the Gaussian Process Regressor.

    Parameters:
    -----------
    x: Sampled points.
    y: Target values of the sampled points.
    params: Hyperparameters of the GP.
    lr: Learning rate of the train step.
    nsteps: Number of epochs to train.

    Returns:
    --------
    Tuple with the trained `params`, `momentums` and `scales`.
    """

    def train_step(
        params: GParameters, momentums: GParameters, scales: GParameters
    ) -> Tuple:
        grads = grad_fun(params, x, y, dtypes=dtypes)
        momentums = tree_util.tree_map(
            lambda m, g: 0.9 * m + 0.1 * g, momentums, grads
        )
        scales = tree_util.tree_map(
            lambda s, g: 0.9 * s + 0.1 * g ** 2, scales, grads
        )
        params = tree_util.tree_map(
            lambda p, m, s: p - lr * m / jnp.sqrt(s + 1e-5),
            params,
            momentums,
            scales,
        )
        return params, momentums, scales

    params, momentums, scales = lax.fori_loop(
        0,
        nsteps,
        lambda _, v: train_step(*v),
        (params, momentums, scales),
    )

    return params, momentums, scales


class ACQ(Enum):
    EI = 1
    POI = 2
    UCB = 3
    LCB = 4


def select_acq(acq: Union[ACQ, str], acq_params: dict) -> Callable:
    """
    Wrapper that selects the correct acquisition function and makes sure
    that the parameters for it exist.
    """
    # note(alonfnt): 3.10 asks for a switch statement here, but for <3.10
    # if/else makes more sense.

    if acq == ACQ.EI:
        xi = acq_params["xi"] if "xi" in acq_params else 0.01
        return partial(expected_improvement, xi=xi)
    elif acq == ACQ.POI:
        xi = acq_params["xi"] if "xi" in acq_params else 0.01
        return partial(probability_improvement, xi=xi)
    elif acq == ACQ.UCB:
        kappa = acq_params["kappa"] if "kappa" in acq_params else 0.01
        return partial(upper_confidence_bounds, kappa=kappa)
    elif acq == ACQ.LCB:
        kappa = acq_params["kappa"] if "kappa" in acq_params else 0.01
        return partial(lower_confidence_bounds, kappa=kappa)
    raise ValueError("The acquisition function given is not correct.")


def expected_improvement(
    x_pred: Array,
    params: GParameters,
    x: Array,
    y: Array,
    dtypes: Union[dict, None],
    xi: dict,
) -> Array:
    y_max = y.max()
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    improvement = mu.T - y_max - xi
    z = improvement / (std + 1e-3)
    ei = improvement * norm.cdf(z) + std * norm.pdf(z)
    return ei


def probability_improvement(
    x_pred: Array,
    params: GParameters,
    x: Array,
    y: Array,
    dtypes: Union[dict, None],
    xi: float,
) -> Array:
    y_max = y.max()
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    z = (mu - y_max - xi) / std
    return norm.cdf(z)


def upper_confidence_bounds(
    x_pred: Array,
    params: GParameters,
    x: Array,
    y: Array,
    dtypes: Union[dict, None],
    kappa: float,
) -> Array:
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    return mu + kappa * std


def lower_confidence_bounds(
    x_pred: Array,
    params: GParameters,
    x: Array,
    y: Array,
    dtypes: Union[dict, None],
    kappa: float,
) -> Array:
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    return mu - kappa * std


class OptimizerParameters(NamedTuple):
    """
    Object holding the results of the optimization.
    """

    target: Union[Array, float]
    params: Array
    f: Callable
    params_all: Array
    target_all: Array


def jacobian(f: Callable) -> Callable:
    return jit(jacrev(f))


def replace_nan_values(arr: Array) -> Array:
    """
    Replaces the NaN values (if any) in arr with 0.

    Parameters:
    -----------
    arr: The array where NaN is removed from.

    Returns:
    --------
    The array with all the NaN elements replaced with 0.
    """
    # todo(alonfnt): Find a more robust solution.
    return jnp.where(jnp.isnan(arr), 0, arr)


@partial(jit, static_argnums=(6,))
def suggest_next(
    key: Array,
    params: GParameters,
    x: Array,
    y: Array,
    bounds: Array,
    dtypes: DataTypes,
    acq: Callable,
    n_seed: int = 1000,
    lr: float = 0.1,
    n_epochs: int = 150,
) -> Tuple[Array, Array]:
    """
    Suggests the new point to sample by optimizing the acquisition function.

    Parameters:
    -----------
    key: The pseudo-random generator key used for jax random functions.
    params: Hyperparameters of the Gaussian Process Regressor.
    x: Sampled points.
    y: Sampled targets.
    bounds: Array of (2, dim) shape with the lower and upper bounds of the
            variables.y_max: The current maximum value of the target values Y.
    dtypes: The type of non-real variables in the target function.
    n_seed (optional): the number of points to probe and minimize until
            finding the one that maximizes the acquisition functions.
    lr (optional): The step size of the gradient descent.
    n_epochs (optional): The number of steps done on the descent to minimize
            the seeds.


    Returns:
    --------
    A tuple with the parameters that maximize the acquisition function and a
    jax PRGKey to be used in the next sampling.
    """

    key1, key2 = random.split(key, 2)
    dim = bounds.shape[0]

    domain = random.uniform(
        key1, shape=(n_seed, dim), minval=bounds[:, 0], maxval=bounds[:, 1]
    )

    _acq = partial(acq, params=params, x=x, y=y, dtypes=dtypes)

    J = jacobian(lambda x: _acq(x.reshape(-1, dim)).reshape())
    HS = vmap(lambda x: x + lr * J(x))

    domain = lax.fori_loop(0, n_epochs, lambda _, d: HS(d), domain)
    domain = jnp.clip(
        domain.reshape(-1, dim), min=bounds[:, 0], max=bounds[:, 1]
    )
    domain = replace_nan_values(domain)
    domain = round_integers(domain, dtypes)

    ys = _acq(domain)
    next_X = domain[ys.argmax()]
    return next_X, key2


@partial(jit, static_argnums=(1, 2))
def _extend_array(arr: Array, pad_width: int, axis: int) -> Array:
    """
    Extends the array pad_width only on one direction and fills it with
    the last value of that axis.
    TODO: consider donate_argnums=0 if the device allows it.
    """
    pad_shape = [(0, 0)] * arr.ndim
    pad_shape[axis] = (0, pad_width)
    return jnp.pad(arr, pad_shape, mode="edge")


def optim(
    f: Callable,
    constrains: dict,
    seed: int = 42,
    n_init: int = 5,
    n: int = 10,
    ctypes: Optional[dict] = None,
    acq: ACQ = ACQ.EI,
    **acq_params: dict,
) -> OptimizerParameters:
    """
    Finds the inputs of 'f' that yield the maximum value between the given
    'constrains', after 'n_init' + 'n' iterations.

    Parameters:
    -----------
    f: Function to optimize.
    constrains: Dictionary with the domain of each input variable.
    seed: Pseudo-random number generator seed for reproducibility
    n_init: Number of initial evaluations before suggesting optimized samples.
    n: Number of sampling iterations.
    ctypes: The type of non-real variables in the target function.

    Returns:
    --------
    The parameters that maximize the given 'f'.
    """

    assert n > 0, "Num of iterations n should be a positive integer"

    key = random.PRNGKey(seed)
    dim = len(constrains)
    _vars = f.__code__.co_varnames[: f.__code__.co_argcount]
    _sorted_constrains = {k: constrains[k] for k in _vars}

    if ctypes is not None:
        _sorted_types = {k: ctypes[k] for k in _vars if k in ctypes}
        dtypes = DataTypes(
            integers=[
                _vars.index(k) for k, v in _sorted_types.items() if v == int
            ]
        )
    else:
        dtypes = DataTypes(integers=[])

    _acq = select_acq(acq, acq_params)

    bounds = jnp.asarray(list(_sorted_constrains.values()))

    X = random.uniform(
        key,
        shape=(n_init, dim),
        minval=bounds[:, 0],
        maxval=bounds[:, 1],
    )
    X = round_integers(X, dtypes)
    Y = vmap(f)(*X.T)

    # Expand the array with the same last values to not perjudicate the gp.
    # the reason to apply it as a function is to avoid having twice the memory
    # usage, since JAX does not do inplace updates except after being
    # compiled.
    X = _extend_array(X, n, 0)
    Y = _extend_array(Y, n, 0)

    # Initialize the GP parameters
    params = GParameters(
        noise=jnp.zeros((1, 1)) - 5.0,
        amplitude=jnp.zeros((1, 1)),
        lengthscale=jnp.zeros((1, dim)),
    )
    momentums = tree_map(lambda x: x * 0, params)
    scales = tree_map(lambda x: x * 0 + 1, params)

    for idx in range(n_init, n + n_init):
        params, momentums, scales = train(
            X, Y, params, momentums, scales, dtypes
        )
        max_params, key = suggest_next(key, params, X, Y, bounds, dtypes, _acq)  # expect: JIT502
        X = X.at[idx, ...].set(max_params)  # type: ignore
        Y = Y.at[idx].set(f(*max_params))  # type: ignore

    best_target = float(Y.max())
    best_params = {k: v for (k, v) in zip(constrains.keys(), X[Y.argmax()])}
    optimizer_params = OptimizerParameters(
        target=best_target, params=best_params, f=f, params_all=X, target_all=Y
    )
    return optimizer_params


if __name__ == "__main__":
    seen = []
    jitted_suggest_next = suggest_next

    def suggest_next(key, *args):
        seen.append(key)
        return jitted_suggest_next(key, *args)

    def f(x, y):
        return -((x - 1.0) ** 2) - (y + 0.5) ** 2

    res = optim(f, {"x": (-3.0, 3.0), "y": (-2.0, 2.0)}, seed=42, n_init=3, n=2)
    assert res.params_all.shape == (5, 2)
    # observed: line 454 splits, for the first search, the key that drew the initial points
    bounds = jnp.asarray([(-3.0, 3.0), (-2.0, 2.0)])
    initial = random.uniform(
        seen[0], shape=(3, 2), minval=bounds[:, 0], maxval=bounds[:, 1]
    )
    assert jnp.array_equal(seen[0], random.PRNGKey(42))
    assert jnp.allclose(initial, res.params_all[:3])
