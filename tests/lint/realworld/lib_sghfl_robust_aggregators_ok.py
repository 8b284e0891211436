# source: https://github.com/codymlewis/SGHFL/blob/6fc12005ca1d4a058c4d7ad4e05be6ec90fd1f28/src/fl.py
#   (SGHFL, federated learning experiments for smart-grid forecasting in JAX/flax: the
#   client learner step and the jitted robust aggregation rules of the server, FedAvg,
#   median, top-k, Krum, trimmed mean, Phocas, geometric median, SSFGM and its top-k
#   variant, space-sample mean, plus the stateful KickbackMomentum and FedProx servers)
# observed on jax 0.10.2 CPU: runs clean: the aggregators are called as the experiments call
#   them, aggregate(all_params), so k, c, rho and gamma keep their Python defaults and
#   round((c / 2) * len(all_params)), round((1 - k) * x.size) and the slices built from them
#   are Python ints at the trace; inside topk_ssfgm the call ssfgm(pruned_params, rho, gamma)
#   hands the inner jit Python floats, which it traces and only uses in arithmetic, and its
#   traced k only indexes an array; krum's n is the list's length. Every rule returns a
#   parameter tree of the clients' shape, and KickbackMomentum and FedProx keep their state
#   outside jit.
# gap: exemption-vs-JAX
# added: only the parts of src/fl.py the aggregators need (imports of the module's data
#   manager, logger, sklearn and scipy left out, `import jax.flatten_util` added, which the
#   module used through an earlier import); the __main__ block, which trains five
#   clients' PowerNet models one step each and aggregates their parameters with every rule.
from __future__ import annotations
from typing import Tuple
import numpy as np
import jax
import jax.flatten_util
import jax.numpy as jnp
import jax.scipy.optimize as jspo
import chex
import flax.linen as nn
from flax.training import train_state
import optax


class PowerNet(nn.Module):
    "Neural network for predicting future power load and generation in solar_home and apartment"
    classes: int = 2

    @nn.compact
    def __call__(self, x):
        x = nn.standardize(x)
        x = nn.Dense(self.classes, name="classifier")(x)
        return x


@jax.jit
def learner_step(
    state: train_state.TrainState,
    X: chex.Array,
    Y: chex.Array,
    delta: float = 1.0,
) -> Tuple[float, train_state.TrainState]:
    def loss_fn(params):
        predictions = state.apply_fn(params, X)
        return jnp.mean(jnp.where(
                jnp.abs(predictions - Y) < delta,
                0.5 * (predictions - Y)**2,
                delta * (jnp.abs(predictions - Y) - 0.5 * delta)
            ))

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    state = state.apply_gradients(grads=grads)
    return loss, state


@jax.jit
def fedavg(all_params):
    return jax.tree_util.tree_map(lambda *x: sum(x) / len(x), *all_params)


@jax.jit
def median(all_params):
    return jax.tree_util.tree_map(lambda *x: jnp.median(jnp.array(x), axis=0), *all_params)


@jax.jit
def topk(all_params, k=0.9):
    avg_params = jax.tree_util.tree_map(lambda *x: sum(x) / len(x), *all_params)

    def prune(x):
        K = round((1 - k) * x.size)
        return jnp.where(x >= jnp.partition(x.reshape(-1), K)[K], x, 0)

    return jax.tree_util.tree_map(prune, avg_params)


@jax.jit
def krum(all_params):
    n = len(all_params)
    clip = round(0.5 * n)
    X = jnp.array([jax.flatten_util.ravel_pytree(p)[0] for p in all_params])
    unflattener = jax.flatten_util.ravel_pytree(all_params[0])[1]
    distances = jnp.sum(X**2, axis=1)[:, None] + jnp.sum(X**2, axis=1)[None] - 2 * jnp.dot(X, X.T)
    _, scores = jax.lax.scan(lambda unused, d: (None, jnp.sum(jnp.sort(d)[1:((n - clip) - 1)])), None, distances)
    idx = jnp.argpartition(scores, n - clip)[:(n - clip)]
    return unflattener(jnp.mean(X[idx], axis=0))


@jax.jit
def trimmed_mean(all_params, c=0.5):
    reject_i = round((c / 2) * len(all_params))
    X = jnp.array([jax.flatten_util.ravel_pytree(p)[0] for p in all_params])
    unflattener = jax.flatten_util.ravel_pytree(all_params[0])[1]
    sorted_X = jnp.sort(X, axis=0)
    return unflattener(jnp.mean(sorted_X[reject_i:-reject_i], axis=0))


@jax.jit
def phocas(all_params, c=0.5):
    X = jnp.array([jax.flatten_util.ravel_pytree(p)[0] for p in all_params])
    unflattener = jax.flatten_util.ravel_pytree(all_params[0])[1]
    # First find the trimmed mean
    reject_i = round((c / 2) * len(all_params))
    sorted_X = jnp.sort(X, axis=0)
    trmean_X = jnp.mean(sorted_X[reject_i:-reject_i], axis=0)
    # Then use it for Phocas
    tm_closest_idx = jnp.argsort(jnp.linalg.norm(X - trmean_X, axis=0))[:round((1 - c) * len(all_params))]
    return unflattener(jnp.mean(X[tm_closest_idx], axis=0))


@jax.jit
def geomedian(all_params):
    X = jnp.array([jax.flatten_util.ravel_pytree(p)[0] for p in all_params])
    unflattener = jax.flatten_util.ravel_pytree(all_params[0])[1]
    return unflattener(jspo.minimize(
        lambda x: jnp.linalg.norm(X - x),
        x0=jnp.mean(X, axis=0),
        method="BFGS",
        options={"maxiter": 5}
    ).x)


@jax.jit
def ssfgm(all_params, rho: float = 0.01, gamma: float = 30):
    """
    Assumptions:
    - Attacking clients are in the minority
    - Updates are i.i.d.
    - Most updates are closer to the honest mean than the target
    """
    # Clip the updates
    X = jnp.array([jax.flatten_util.ravel_pytree(p)[0] for p in all_params])
    unflattener = jax.flatten_util.ravel_pytree(all_params[0])[1]
    X = (X.T * jnp.minimum(1, gamma / jnp.linalg.norm(X, axis=-1))).T
    c = jnp.minimum(
        1.0,
        jnp.mean(
            (jnp.sqrt(0.6) * (jnp.std(X, axis=0) + 1e-8)) /
            (jnp.abs(jnp.median(X, axis=0) - jnp.mean(X, axis=0)) + 1e-8),
        )
    )
    # Eliminate samples that are too close to eachother, leaving only one representative
    dists = jnp.sum(X**2, axis=1)[:, None] + jnp.sum(X**2, axis=1)[None] - 2 * jnp.dot(X, X.T)
    sigma = jnp.std(X)
    far_enough_idx = jnp.all((dists + (jnp.eye(X.shape[0]) * rho * sigma)) >= (rho * sigma), axis=0)
    overlap_X = jnp.sum((X.T * ~far_enough_idx).T, axis=0) / jnp.maximum(jnp.sum(~far_enough_idx), 1.0)
    X = jnp.concatenate((X, overlap_X.reshape(1, -1)))
    far_enough_idx = jnp.concatenate((far_enough_idx, jnp.array([True])))
    k = (jnp.round(jnp.sum(far_enough_idx) * c) - 1 + jnp.sum(~far_enough_idx)).astype(int)
    return unflattener(jspo.minimize(
        lambda x: jnp.sum(jnp.where(
            (
                jnp.linalg.norm(X - x, axis=1) <= jnp.sort(jnp.where(far_enough_idx, jnp.linalg.norm(X - x, axis=1), 0.0))[k]
            ) & far_enough_idx,
            jnp.linalg.norm(X - x, axis=1),
            0.0,
        )),
        x0=jnp.mean(X, axis=0),
        method="BFGS",
        options={"maxiter": 5}
    ).x)


@jax.jit
def topk_ssfgm(all_params, k: float = 0.9, rho: float = 0.01, gamma: float = 30):
    def prune(x):
        K = round((1 - k) * x.size)
        return jnp.where(x >= jnp.partition(x.reshape(-1), K)[K], x, 0)

    pruned_params = [jax.tree_util.tree_map(prune, params) for params in all_params]
    return ssfgm(pruned_params, rho, gamma)


@jax.jit
def space_sample_mean(all_params):
    X = jnp.array([jax.flatten_util.ravel_pytree(p)[0] for p in all_params])
    unflattener = jax.flatten_util.ravel_pytree(all_params[0])[1]
    # Eliminate samples that are too close to eachother, leaving only one representative
    dists = jnp.sum(X**2, axis=1)[:, None] + jnp.sum(X**2, axis=1)[None] - 2 * jnp.dot(X, X.T)
    rho = jnp.max(dists) / jnp.sqrt(X.shape[0])
    sigma = jnp.std(X)
    far_enough_idx = jnp.all((dists + (jnp.eye(X.shape[0]) * rho * sigma)) >= (rho * sigma), axis=0)
    X_sum = jnp.sum((X.T * far_enough_idx).T, axis=0) + jnp.sum((X.T * ~far_enough_idx).T, axis=0)
    X_mean = X_sum / (jnp.sum(far_enough_idx) + 1)
    return unflattener(X_mean)


class KickbackMomentum:
    def __init__(self, global_params, mu1=0.5, mu2=0.1, aggregate_fn=fedavg):
        self.global_params = global_params
        self.momentum = None
        self.prev_parameters = None
        self.mu1 = mu1
        self.mu2 = mu2
        self.aggregate = aggregate_fn

    def __call__(self, all_params):
        if self.momentum is None:
            self.momentum = jax.tree_util.tree_map(jnp.zeros_like, self.global_params)
        else:
            self.momentum = calc_inner_momentum(self.momentum, self.global_params, self.prev_parameters, self.mu1)
        self.prev_parameters = self.global_params.copy()
        grads = self.aggregate([tree_sub(cp, self.global_params) for cp in all_params])
        self.global_params = calc_outer_momentum(self.momentum, grads, self.global_params, self.mu2)
        return self.global_params


@jax.jit
def calc_inner_momentum(momentum, params, prev_params, mu):
    return jax.tree_util.tree_map(lambda m, p, pp: mu * m + (p - pp), momentum, params, prev_params)


@jax.jit
def calc_outer_momentum(momentum, grads, params, mu):
    return jax.tree_util.tree_map(lambda m, g, p: p + mu * m + g, momentum, grads, params)


class FedProx:
    def __init__(self, global_params, mu=0.00001, aggregate_fn=fedavg):
        self.global_params = global_params
        self.prev_parameters = None
        self.mu = mu
        self.aggregate = aggregate_fn

    def __call__(self, all_params):
        self.prev_parameters = self.global_params.copy()
        grads = self.aggregate([tree_sub(cp, self.global_params) for cp in all_params])
        self.global_params = calc_fedprox(tree_add(self.global_params, grads), grads, self.prev_parameters, self.mu)
        return self.global_params


@jax.jit
def calc_fedprox(params, grads, prev_params, mu):
    return jax.tree_util.tree_map(lambda p, g, pp: pp + g - mu * (p - pp), params, grads, prev_params)


@jax.jit
def tree_sub(tree_a, tree_b):
    return jax.tree_util.tree_map(lambda a, b: a - b, tree_a, tree_b)


@jax.jit
def tree_add(tree_a, tree_b):
    return jax.tree_util.tree_map(lambda a, b: a + b, tree_a, tree_b)


if __name__ == "__main__":
    model = PowerNet()
    X = jax.random.normal(jax.random.PRNGKey(0), (32, 8))
    Y = jax.random.normal(jax.random.PRNGKey(1), (32, 2))
    global_params = model.init(jax.random.PRNGKey(2), X[:1])

    all_params = []
    for i in range(5):
        state = train_state.TrainState.create(
            apply_fn=model.apply, params=global_params, tx=optax.sgd(0.1 * (i + 1))
        )
        loss, state = learner_step(state, X, Y)
        all_params.append(state.params)

    shapes = jax.tree_util.tree_map(jnp.shape, global_params)
    for aggregate in [fedavg, median, topk, krum, trimmed_mean, phocas, geomedian,
                      ssfgm, topk_ssfgm, space_sample_mean, KickbackMomentum(global_params), FedProx(global_params)]:
        new_params = aggregate(all_params)
        assert jax.tree_util.tree_map(jnp.shape, new_params) == shapes
        assert all(bool(jnp.all(jnp.isfinite(x))) for x in jax.tree_util.tree_leaves(new_params))

    avg = fedavg(all_params)
    mean_kernel = sum(p["params"]["classifier"]["kernel"] for p in all_params) / 5
    assert jnp.allclose(avg["params"]["classifier"]["kernel"], mean_kernel, atol=1e-6)
