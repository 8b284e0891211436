# source: https://github.com/kellian-cottart/jax-bayesian/blob/13c96939f4bbde8d151aec9d45259ee6e8c93fe4/permutedmnist-test.py
#   (with models/bayesianClassifier.py, models/classifier.py, optimizers/mesu.py and optimizers/sgd.py at the same commit)
# observed on jax 0.10.2 CPU: the training loop's key `rng` is never advanced. It builds the model (configure_networks),
#   then every epoch's lax.scan starts from that same `rng`, and train_fn hands the carried key back unchanged, so every
#   batch of every epoch samples the Bayesian weights with the same noise: the noise the network draws is the same at
#   each step, and the same as the noise of the initial weights' key. The test pass draws from `rng` once more.
#   Kept: test_fn, prepare_data, configure_networks, configure_optimizer, loss_fn, train_fn and the __main__ loop of the
#   file; dropped: the PermutedMNIST-only helpers (test_batch_permutation_fn, permute_and_test), the results folders,
#   the json dump and the try/except that deletes them. Inlined from the repository: GaussianParameter, BayesianLinear,
#   SmallBayesianNetwork, SmallNetwork, mesu and sgd. Added: a stand-in for dataloader.GPULoading returning 64 random
#   28x28 "MNIST" images with labels; the configuration uses 2 epochs and batch size 16 instead of 100 and 1; the
#   Bayesian network's BayesianLinear records the keys it samples with (one debug callback, marked), and its
#   `shape` is imported as `_shape` (inlined into this module, it would be rebound by __main__'s `shape`).
#   Also silent: the epoch loop hands the eager lax.scan a new ft.partial(train_fn, ...) each
#   epoch, and JAX caches eager control flow by the function object, so the scan compiles
#   again in every epoch (counted in JAX's compile log: 2 epochs, 2 compiles of jit(scan)).
#   This label was added by the project when a finding there was read and checked by running
#   it; the __main__ block's compile-log handler is part of that addition.
#   The stand-in loader draws its data from one constant key on every call, the same data
#   each time on purpose (tolerated).
# gap: other
# observed: line 389 every epoch's scan starts from the `rng` that built the model and train_fn hands it back unchanged: all 8 training steps sample each layer's noise with one key, the key of that layer's initial means (JAX's key-reuse checker raises on this scan call)
# observed: line 393 the test pass samples with that same key again
import jax
import jax.numpy as jnp
import equinox as eqx
from tqdm import tqdm
import functools as ft
import optax
from equinox import Module, field
from equinox import _misc
from jax.random import split, normal, uniform
from jax.nn import relu
from jax.numpy import reshape, ones
from jax.numpy import shape as _shape, broadcast_to, einsum
from typing import Literal, Union
from jaxtyping import PRNGKeyArray, Array
from math import sqrt
from equinox.nn import Linear

SAMPLED_KEYS = []  # added: keys BayesianLinear samples with (as concrete values, see below)


# ---- models/bayesianClassifier.py
class GaussianParameter(Module):
    mu: Array
    sigma: Array

    def __init__(self, mu: Array, sigma: Array):
        self.mu = mu
        self.sigma = sigma


class BayesianLinear(Module, strict=True):
    """Performs a linear transformation."""

    weight: dict[str, Array]
    bias: dict[str, Array]
    in_features: Union[int, Literal["scalar"]] = field(static=True)
    out_features: Union[int, Literal["scalar"]] = field(static=True)
    use_bias: bool = field(static=True)

    def __init__(
        self,
        in_features: Union[int, Literal["scalar"]],
        out_features: Union[int, Literal["scalar"]],
        use_bias: bool = True,
        dtype=None,
        *,
        key: PRNGKeyArray,
        sigma_init: float = 0.1,
    ):
        dtype = _misc.default_floating_dtype() if dtype is None else dtype
        wkey, bkey = split(key, 2)
        in_features_ = 1 if in_features == "scalar" else in_features
        out_features_ = 1 if out_features == "scalar" else out_features
        lim = 1 / sqrt(in_features_)
        wshape = (out_features_, in_features_)
        bshape = (out_features_,)

        self.weight = GaussianParameter(
            mu=uniform(wkey, wshape, minval=-lim, maxval=lim),
            sigma=ones(wshape, dtype) * sigma_init,
        )
        self.bias = GaussianParameter(
            mu=uniform(bkey, bshape, minval=-lim, maxval=lim),
            sigma=ones(bshape, dtype) * sigma_init,
        )
        self.in_features = in_features
        self.out_features = out_features
        self.use_bias = use_bias

    def __call__(self, x: Array, samples: int, *, key: PRNGKeyArray) -> Array:
        if len(_shape(x)) == 1:
            x = broadcast_to(x, (samples, *_shape(x)))
        wkey, bkey = split(key, 2)
        jax.debug.callback(lambda k: SAMPLED_KEYS.append(tuple(jax.random.key_data(k).ravel().tolist()) if jnp.issubdtype(k.dtype, jax.dtypes.prng_key) else tuple(k.ravel().tolist())), wkey)  # added
        weights = self.weight.mu + self.weight.sigma * \
            normal(wkey, (samples, *_shape(self.weight.mu)))
        output = einsum("sp, sop -> so", x, weights)
        if self.use_bias:
            biases = self.bias.mu + self.bias.sigma * \
                normal(bkey, (samples, *_shape(self.bias.mu)))
            output = output + biases
        return output


class SmallBayesianNetwork(Module):
    linear1: BayesianLinear
    linear2: BayesianLinear

    def __init__(self, key, sigma_init):
        key1, key2 = split(key)
        self.linear1 = BayesianLinear(
            784, 50, use_bias=False, key=key1, sigma_init=sigma_init)
        self.linear2 = BayesianLinear(
            50, 10, use_bias=False, key=key2, sigma_init=sigma_init)

    def __call__(self, x, samples, key):
        key1, key2 = split(key)
        x = reshape(x, (-1))
        x = relu(self.linear1(x, samples=samples, key=key1))
        x = self.linear2(x, samples=samples, key=key2)
        return x


# ---- models/classifier.py
class SmallNetwork(Module):
    linear1: Linear
    linear2: Linear

    def __init__(self, key):
        key1, key2 = split(key)
        self.linear1 = Linear(784, 50, use_bias=False, key=key1)
        self.linear2 = Linear(50, 10, use_bias=False, key=key2)

    def __call__(self, x):
        x = reshape(x, (-1))
        x = relu(self.linear1(x))
        x = self.linear2(x)
        return x


# ---- optimizers/mesu.py
def mesu(
        lr_mu: float = 1,
        lr_sigma: float = 1,
        mu_prior: float = 0,
        N_mu: int = 1e5,
        N_sigma: int = 1e5,
        clamp_grad: float = 0.) -> optax.GradientTransformation:

    def init(params):
        def check_bayesian(path, param):
            if len(path) != 3:
                raise ValueError("The network doesn't have 2 parameters.")
            if not ("mu" in path[2].name or "sigma" in path[2].name):
                raise ValueError(
                    "All parameters should be Bayesian, i.e contain mu or sigma in their parameters.")
            if "sigma" in path[2].name:
                return param.copy()
            elif "mu" in path[2].name:
                return jnp.ones_like(param) * mu_prior
            else:
                return param.copy()

        prior = jax.tree_util.tree_map_with_path(check_bayesian, params)
        return {
            'step': 0,
            'prior': prior,
        }

    def update(params, gradients, state):
        state['step'] += 1

        def update_mesu(param, grad, prior):
            """ Update the parameters based on the gradients and the prior"""
            if clamp_grad > 0:
                grad = jax.tree_util.tree_map(
                    lambda x: jnp.clip(x, -clamp_grad/param.sigma, clamp_grad/param.sigma), grad)
            variance = param.sigma ** 2
            sigma_p_sq = prior.sigma ** 2
            mu_update = param.mu + lr_mu * \
                variance * (-grad.mu + (prior.mu - param.mu) /
                            (N_mu * sigma_p_sq))
            sigma_update = param.sigma + 0.5 * lr_sigma * (- variance * grad.sigma + param.sigma / (N_sigma * sigma_p_sq) * (
                sigma_p_sq - variance))

            def update_param(path, param):
                if path[-1].name == 'mu':
                    return mu_update
                elif path[-1].name == 'sigma':
                    return sigma_update
            return jax.tree_util.tree_map_with_path(update_param, param)

        def discriminant(param):
            """ Discriminate between Bayesian parameters"""
            return hasattr(param, 'mu') and hasattr(param, 'sigma') and param.mu is not None and param.sigma is not None

        updates = jax.tree.map(update_mesu, params,
                               gradients, state['prior'], is_leaf=discriminant)
        return updates, state

    return optax.GradientTransformation(init, update)


# ---- optimizers/sgd.py
def sgd(lr: float = 0.001,):
    def init(params):
        return {
            'step': 0,
        }

    def update(params, gradient, state):
        state['step'] += 1
        updates = jax.tree_util.tree_map(
            lambda param, grad: param - lr * grad if grad is not None else param, params, gradient)
        return updates, state

    return optax.GradientTransformation(init, update)


# ---- stand-in for dataloader.GPULoading
class _Split:
    def __init__(self, data, targets):
        self.data, self.targets = data, targets


class GPULoading:
    def task_selection(self, task):
        k1, k2 = jax.random.split(jax.random.PRNGKey(123))  # tolerate: JIT502
        data = jax.random.uniform(k1, (64, 28, 28))
        targets = jax.random.randint(k2, (64,), 0, 10)
        return _Split(data, targets), _Split(data[:32], targets[:32]), (28, 28), 10


# ---- permutedmnist-test.py
@ft.partial(jax.jit, static_argnames=("samples"))
def test_fn(model, images, labels, samples=None, rng=None):
    if samples is not None:
        output = jax.vmap(model, in_axes=(0, None, None))(
            images, samples, rng).mean(axis=1)
    else:
        output = jax.vmap(model)(images)
    pred = jnp.argmax(output, axis=-1)
    labels = jnp.argmax(labels, axis=-1)
    accuracy = jnp.mean(pred == labels)
    return accuracy


def prepare_data(data, targets, batch_size):
    data = jnp.array(data, dtype=jnp.float32)
    targets = jax.nn.one_hot(
        jnp.array(targets, dtype=jnp.int32), num_classes=num_classes)
    data, targets = data[:len(
        data) - len(data) % batch_size], targets[:len(targets) - len(targets) % batch_size]
    return data.reshape(-1, batch_size, *data.shape[1:]), targets.reshape(-1, batch_size, num_classes)


def configure_networks(configuration, rng):

    # make a dictionary of maps
    select_network = {
        "bayesianmlp": SmallBayesianNetwork,
        "mlp": SmallNetwork,
    }
    if not "network_params" in configuration:
        raise ValueError("Network parameters not found")
    try:
        model = select_network[configuration["network"]](
            key=rng, **configuration["network_params"])
    except KeyError as e:
        raise KeyError("Error with provided keys: ", e)

    return model


def configure_optimizer(configuration, model):

    select_optimizer = {
        "sgd": sgd,
        "mesu": mesu,
    }
    if not "optimizer_params" in configuration:
        raise ValueError("Optimizer parameters not found")
    try:
        optimizer = select_optimizer[configuration["optimizer"]](
            **configuration["optimizer_params"]
        )
    except KeyError as e:
        raise KeyError("Error with provided keys: ", e)

    opt_state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))
    return optimizer, opt_state


@ft.partial(jax.jit, static_argnames=("samples"))
def loss_fn(model, images, labels, perm=None, samples=None, rng=None):
    if perm is not None:
        images = images.reshape(
            images.shape[0], -1)[:, perm].reshape(images.shape)
    if samples is not None:
        output = jax.vmap(model, in_axes=(0, None, None))(
            images, samples, rng).mean(axis=1)
    else:
        output = jax.vmap(model)(images)
    return -jnp.sum(jax.nn.log_softmax(output) * labels)


@ ft.partial(jax.jit, static_argnames=("samples"))
def train_fn(carry, data, samples=None):
    model, opt_state, perm, rng = carry
    images, labels = data
    # Compute the loss
    loss, grads = eqx.filter_value_and_grad(loss_fn)(
        model, images, labels, perm, samples, rng)
    # Update
    model, opt_state = optimizer.update(model, grads, opt_state)
    return (model, opt_state, perm, rng), loss


if __name__ == "__main__":
    import logging

    SCAN_COMPILES = []  # added (relabelling): the scan's compiles, from JAX's compile log

    class _CountScanCompiles(logging.Handler):
        def emit(self, record):
            if "XLA compilation of jit(scan)" in record.getMessage():
                SCAN_COMPILES.append(record.getMessage())

    logging.getLogger("jax").addHandler(_CountScanCompiles())
    jax.config.update("jax_log_compiles", True)
    N_ITERATIONS = 1
    configurations = [
        {
            "network": "bayesianmlp",
            "network_params":   {
                "sigma_init": 0.2,
            },
            "optimizer": "mesu",
            "optimizer_params": {
                "lr_mu": 1,
                "lr_sigma": 1,
                "mu_prior": 0,
                "N_mu": 300_000,
                "N_sigma": 300_000,
                "clamp_grad": 0.05,
            },
            "task": "MNIST",
            "n_train_samples": 8,
            "n_test_samples": 8,
            "n_tasks": 1,
            "epochs": 2,
            "train_batch_size": 16,
            "test_batch_size": 16,
            "seed": 0 + i,
            "max_perm_parallel": 25,
        } for i in range(N_ITERATIONS)
    ]
    for k, configuration in enumerate(configurations):
        # Load the MNIST dataset
        loader = GPULoading()
        train, test, shape, num_classes = loader.task_selection(
            configuration["task"])
        # Initialize the model
        rng = jax.random.PRNGKey(configuration["seed"])
        # Permutations
        if configuration["task"] == "PermutedMNIST":
            permutations = jnp.array(
                [jax.random.permutation(key, jnp.array(shape).prod()) for key in jax.random.split(rng, configuration["n_tasks"])])
        model = configure_networks(configuration, rng)
        optimizer, opt_state = configure_optimizer(configuration, model)
        # Prepare datasets
        task_train_images, task_train_labels = prepare_data(
            train.data, train.targets, configuration["train_batch_size"])
        test_train_images, test_train_labels = prepare_data(
            test.data, test.targets, configuration["test_batch_size"])

        train_samples = configuration["n_train_samples"] if "n_train_samples" in configuration else None
        test_samples = configuration["n_test_samples"] if "n_test_samples" in configuration else None

        for task in tqdm(range(configuration["n_tasks"]), desc="Tasks"):
            tqdm.write(f"Task {task+1}/{configuration['n_tasks']}")
            # Train the model
            for epoch in tqdm(range(configuration["epochs"]), desc="Epochs"):
                special_perm = permutations[task] if configuration["task"] == "PermutedMNIST" else None
                (model, opt_state, _, _), loss = jax.lax.scan(f=ft.partial(train_fn, samples=train_samples), init=(  # expect: JIT301  # tolerate: JIT502
                    model, opt_state, special_perm, rng), xs=(task_train_images, task_train_labels))  # expect: JIT502
                # Test the model and compute accuracy
                if epoch % 1 == 0:
                    accuracies = jnp.array([jax.vmap(test_fn, in_axes=(None, 0, 0, None, None))(  # tolerate: JIT502
                        model, test_train_images, test_train_labels, test_samples, rng).mean()])  # expect: JIT502
                    for i, acc in enumerate(accuracies):
                        tqdm.write(f"{acc.item()*100:.2f}%", end="\t" if i % 10 !=
                                   9 and i != len(accuracies) - 1 else "\n")
                    tqdm.write(
                        f"Epoch {epoch+1}/{configuration['epochs']} - Loss: {loss.mean():.2f}")

    # added: every batch of both epochs (4 batches x 2 epochs) and both test passes sampled each Bayesian layer's
    # weights with one and the same key: 2 layers x 10 draws, 2 distinct keys
    assert len(SAMPLED_KEYS) == 2 * (len(task_train_images) * configuration["epochs"] + configuration["epochs"]), len(SAMPLED_KEYS)
    assert len(set(SAMPLED_KEYS)) == 2, set(SAMPLED_KEYS)
    # and that key is the key that drew the layer's initial means: configure_networks split the same `rng`
    key1, _ = split(jax.random.PRNGKey(configuration["seed"]))
    wkey, _ = split(key1, 2)
    assert tuple(wkey.ravel().tolist()) in set(SAMPLED_KEYS)
    jax.config.update("jax_log_compiles", False)
    # observed: line 388 compiles the eager scan again in every epoch: each epoch hands lax.scan a
    #   new ft.partial object and JAX caches eager control flow by the function object (added
    #   when the file was relabelled: the collector's labels missed it)
    assert len(SCAN_COMPILES) == configuration["epochs"], SCAN_COMPILES
