# source: https://github.com/wzh-miasanmia/jax_mobo/blob/cb7828d768b83790cc97f69175db5643adb4646d/mobo_jax/acq.py
#   (a student's multi-objective Bayesian optimisation built on a copy of bayex: expected_HV_improvement,
#   the EHVI acquisition, is handed to the jitted suggest_next as its static `acq`; code from the same
#   commit's mobo_jax/optim.py, gp.py, pareto_cal.py, HV_cal.py and test_function_mobo.py)
# observed on jax 0.10.2 CPU: the first suggest_next call traces expected_HV_improvement under jit
#   (inside jit(jacrev(...)) in a vmap in a fori_loop) and `previous_points[previous_pareto_mask]`
#   raises NonConcreteBooleanIndexError: the Pareto mask is a tracer, so the selected array has a
#   value-dependent shape.
# tolerated: line 383 hands suggest_next the key `random.uniform(key, ...)` already drew the
#   initial points from (the reuse bayex's optim has, labelled there at the same call): the
#   mask error raises first; run with jax.disable_jit() past it, JAX's key-reuse checker
#   raises KeyReuseError from this call, at suggest_next's `random.split(key, 2)`.
# gap: types
# added: the modules inlined into one file; docstrings shortened; `from jax import tree_map` (removed
#   from JAX) -> jax.tree_util.tree_map; jnp.clip(a_min=, a_max=) (removed) -> min=, max=; Hypervolume
#   trimmed to its __init__ (its compute and the MultiList code are never reached) and the unused
#   from_X_calculate_HV dropped; optim's tail after its loop (a final GP refit and Pareto front, which
#   calls train with wrong keywords) replaced by `return X, Y_multi`; a __main__ block running optim on the repository's Poloni test function.
from enum import Enum
from collections import namedtuple
from functools import partial
from typing import Any, Callable, List, NamedTuple, Optional, Tuple, Union

import jax
import jax.numpy as jnp
from jax import grad, jacrev, jit, lax, random, tree_util, vmap
from jax.scipy.linalg import cholesky, solve_triangular
from jax.scipy.stats import norm
from jax import Array

tree_map = jax.tree_util.tree_map

# ---- mobo_jax/pareto_cal.py
def is_non_dominated_np(Y, deduplicate=True): # expected Y as [n_points, n_functions]
    Y1 = jnp.expand_dims(Y, axis=-3) # [1, n, m]
    Y2 = jnp.expand_dims(Y, axis=-2) # [n, 1, m]
    dominates = (Y1 >= Y2).all(axis=-1) & (Y1 > Y2).any(axis=-1) # default is maximization problem
    nd_mask = ~(dominates.any(axis=-1))

    if deduplicate:
        # remove duplicates
        indices = jnp.all(Y1 == Y2, axis=-1).argmax(axis=-1)
        keep = jnp.zeros_like(nd_mask, dtype=float)
        keep = keep.at[indices].set(1.0)
        return nd_mask & keep.astype(bool)

    return nd_mask

# ---- mobo_jax/HV_cal.py (trimmed)
class Hypervolume:
    def __init__(self, ref_point):
        self.ref_point = ref_point
        self._ref_point = -ref_point

# ---- mobo_jax/gp.py
GParameters = namedtuple("GParameters", ["noise", "amplitude", "lengthscale"])
DataTypes = namedtuple("DataTypes", ["integers"])


def cov(k: Callable, x1: Array, x2: Array = None) -> Array:
    if x2 is None:
        return vmap(lambda x: vmap(lambda y: k(x, y))(x1))(x1)
    else:
        return vmap(lambda x: vmap(lambda y: k(x, y))(x1))(x2).T


def softplus(x: Array) -> Array:
    return jnp.logaddexp(x, 0.0)


def exp_quadratic(x1: Array, x2: Array, ls: Array) -> Array:
    return jnp.exp(-jnp.sum((x1 - x2) ** 2 / ls ** 2))


def round_integers(arr: Array, dtypes: Union[DataTypes, None]) -> Array:
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
    n = x.shape[0]
    x = round_integers(x, dtypes)

    noise, amp, ls = tree_util.tree_map(softplus, params)
    kernel = partial(exp_quadratic, ls=ls)

    ymean = jnp.mean(y)
    y = y - ymean

    K = amp * cov(kernel, x) + (jnp.eye(n) * (noise + 1e-6))

    L = cholesky(K, lower=True)
    K_inv_y = solve_triangular(L.T, solve_triangular(L, y, lower=True))

    if compute_ml:
        fitting = y.T.dot(K_inv_y)
        penalty = 2.0 * jnp.sum(jnp.log(jnp.diag(L)))
        ml = -0.5 * jnp.sum(fitting + penalty + n * jnp.log(2.0 * jnp.pi))
        ml += 0.5 * jnp.log(2.0 * jnp.pi) + jnp.log(amp.reshape()) ** 2
        return -ml

    if xt is not None:
        xt = round_integers(xt, dtypes)

    K_cross = amp * cov(kernel, x, xt)

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

# ---- mobo_jax/acq.py
class ACQ(Enum):
    EI = 1
    POI = 2
    UCB = 3
    LCB = 4
    EHVI = 5

def select_acq(acq: Union[ACQ, str], acq_params: dict) -> Callable:
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
    elif acq == ACQ.EHVI:
        return expected_HV_improvement
    raise ValueError("The acquisition function given is not correct.")


def expected_improvement(x_pred, params, x, y, dtypes, xi):
    y_max = y.max()
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    improvement = mu.T - y_max - xi
    z = improvement / (std + 1e-3)
    ei = improvement * norm.cdf(z) + std * norm.pdf(z)
    return ei


def probability_improvement(x_pred, params, x, y, dtypes, xi):
    y_max = y.max()
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    z = (mu - y_max - xi) / std
    return norm.cdf(z)


def upper_confidence_bounds(x_pred, params, x, y, dtypes, kappa):
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    return mu + kappa * std


def lower_confidence_bounds(x_pred, params, x, y, dtypes, kappa):
    mu, std = predict(params, x, y, dtypes, xt=x_pred)
    return mu - kappa * std


def expected_HV_improvement(
    x_pred: Array,
    params_list: List,
    x: Array,
    y_multi: Array,
    dtypes: Union[dict, None],
    ref_point: Array,
) -> Array:
    # definition of hypervolume
    HV = Hypervolume(ref_point)

    # previous pareto and hypervolume
    mu_sample_list, std_list = zip(*[predict(params, x, y, dtypes, xt=x) for y, params in zip(y_multi.T, params_list)])
    previous_points = jnp.column_stack(mu_sample_list)
    previous_pareto_mask = is_non_dominated_np(previous_points)
    previous_pareto = previous_points[previous_pareto_mask]  # expect: JIT403
    HV_previous = HV.compute(previous_pareto)

    # new pareto and hypervolume
    mu_list, std_list = zip(*[predict(params, x, y, dtypes, xt=x_pred) for y, params in zip(y_multi.T, params_list)])
    new_point = jnp.column_stack(mu_list)
    new_points = jnp.vstack((new_point, previous_points))
    new_pareto_mask = is_non_dominated_np(new_points)
    new_pareto = new_points[new_pareto_mask]  # tolerate: JIT403
    HV_new = HV.compute(new_pareto)

    # calculate ehvi
    improvement = HV_new - HV_previous
    sigma_aggregated = jnp.linalg.norm(jnp.column_stack(std_list))
    Z = improvement / sigma_aggregated
    ehvi = improvement * norm.cdf(Z) + sigma_aggregated * norm.pdf(Z)
    # ehvi[sigma_aggregated == 0.0] = 0.0
    return ehvi

# ---- mobo_jax/optim.py
def jacobian(f: Callable) -> Callable:
    return jit(jacrev(f))


def replace_nan_values(arr: Array) -> Array:
    return jnp.where(jnp.isnan(arr), 0, arr)


@partial(jit, static_argnums=(6,))
def suggest_next(
    key: Array,
    params_list: List,
    x: Array,
    y: Array,
    bounds: Array,
    dtypes: DataTypes,
    acq: Callable,
    ref_point: Array,
    n_seed: int = 1000,
    lr: float = 0.1,
    n_epochs: int = 150,
) -> Tuple[Array, Array]:

    key1, key2 = random.split(key, 2)
    dim = bounds.shape[0]

    domain = random.uniform(
        key1, shape=(n_seed, dim), minval=bounds[:, 0], maxval=bounds[:, 1]
    )

    _acq = partial(acq, params_list=params_list, x=x, y_multi=y, dtypes=dtypes, ref_point=ref_point)

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
    pad_shape = [(0, 0)] * arr.ndim
    pad_shape[axis] = (0, pad_width)
    return jnp.pad(arr, pad_shape, mode="edge")


def optim(
    f_multi: Callable,
    constraints: dict,
    seed: int = 42,
    n_init: int = 5,
    n: int = 10,
    ctypes: Optional[dict] = None,
    acq: ACQ = ACQ.EHVI,
    **acq_params: dict,
) -> Array:

    assert n > 0, "Num of iterations n should be a positive integer"

    key = random.PRNGKey(seed)
    dim = len(constraints)
    _vars = f_multi.__code__.co_varnames[: f_multi.__code__.co_argcount]
    _sorted_constrains = {k: constraints[k] for k in _vars}

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
    Y_multi = vmap(f_multi)(*X.T)

    # define ref_point according to Appendix A.2
    min_values = jnp.min(Y_multi, axis=0)
    max_values = jnp.max(Y_multi, axis=0)
    ref_point = ((min_values + max_values) / 2).squeeze()

    X = _extend_array(X, n, 0)
    Y_multi = _extend_array(Y_multi, n, 0)
    n_f = Y_multi.shape[1]

    # Initialize the GP parameters
    params_list = []
    momentums_list = []
    scales_list = []
    for _ in range(n_f):
        params = GParameters(
            noise=jnp.zeros((1, 1)) - 5.0,
            amplitude=jnp.zeros((1, 1)),
            lengthscale=jnp.zeros((1, dim)),
        )
        momentums = tree_map(lambda x: x * 0, params)
        scales = tree_map(lambda x: x * 0 + 1, params)

        params_list.append(params)
        momentums_list.append(momentums)
        scales_list.append(scales)


    for idx in range(n_init, n + n_init):
        for d in range(n_f):
            # optim the hyperparameters of GP
            params, momentums, scales = train(
                x=X, y=Y_multi[:,d], params=params_list[d], momentums=momentums_list[d], scales=scales_list[d], dtypes=dtypes)
            params_list[d], momentums_list[d], scales_list[d] = params, momentums, scales


        max_params, key = suggest_next(key, params_list, X, Y_multi, bounds, dtypes, _acq, ref_point)  # tolerate: JIT502
        X = X.at[idx, ...].set(max_params)
        Y_multi = Y_multi.at[idx].set(f_multi(*max_params))

    return X, Y_multi

# ---- mobo_jax/test_function_mobo.py
def poloni_objectives(x):
    A1 = 0.5 * jnp.sin(1) - 2 * jnp.cos(1) + jnp.sin(2) - 1.5 * jnp.cos(2)
    A2 = 1.5 * jnp.sin(1) - jnp.cos(1) + 2 * jnp.sin(2) - 0.5 * jnp.cos(2)

    B1 = 0.5 * jnp.sin(x[0]) - 2 * jnp.cos(x[0]) + jnp.sin(x[1]) - 1.5 * jnp.cos(x[1])
    B2 = 1.5 * jnp.sin(x[0]) - jnp.cos(x[0]) + 2 * jnp.sin(x[1]) - 0.5 * jnp.cos(x[1])

    f1 = 1 + (A1 - B1)**2 + (A2 - B2)**2
    f2 = (x[0] + 3)**2 + (x[1] + 1)**2

    return jnp.array([-f1, -f2]) # maximum


if __name__ == "__main__":
    def poloni(x1, x2):
        return poloni_objectives(jnp.array([x1, x2]))

    optim(poloni, {"x1": (-3.0, 3.0), "x2": (-3.0, 3.0)}, n_init=5, n=2)
