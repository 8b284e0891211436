# source: https://github.com/JaxGaussianProcesses/GPJax/blob/b1142ab02ac226a58977a51b1b6b9a371b85dfff/gpjax/abstractions.py
#   (fit_batches verbatim, and Dataset.get_batcher from gpjax/types.py at the same commit; the
#   parent of 13b8b5a8 "Fix fit_batches ... the caching issue in fit_batches", later
#   https://github.com/JaxGaussianProcesses/GPJax/pull/99. trainable_params and stop_grad are
#   copied from gpjax/parameters.py, `jax.tree_map` (removed) spelled `jax.tree.map`. The
#   @progress_bar_scan decorator on `step` (a tqdm bar through host_callback, removed from
#   JAX) is left out. Stand-in: the tf.data pipeline (from_tensor_slices(...).repeat().batch(nb))
#   is a small Python iterable of batches whose tensors have `.numpy()`. Added: the objective,
#   data and the __main__ block.)
# observed on jax 0.10.2 CPU: `next_batch()` in the lax.scan body runs `next(tfd_iter)` once,
#   when the body is traced: every one of the n_iters steps trains on the first minibatch,
#   and the data iterator has advanced by one batch, not n_iters.
# gap: stale-state-attributes
import typing as tp

import jax
import jax.numpy as jnp
import numpy as np
import optax
from chex import dataclass


def stop_grad(param: tp.Dict, trainable: tp.Dict):
    """When taking a gradient, we want to stop the gradient from flowing through a parameter if it is not trainable. This is achieved using the model's dictionary of parameters and the corresponding trainability status."""
    return jax.lax.cond(trainable, lambda x: x, jax.lax.stop_gradient, param)


def trainable_params(params: tp.Dict, trainables: tp.Dict) -> tp.Dict:
    """Stop the gradients flowing through parameters whose trainable status is False"""
    return jax.tree.map(
        lambda param, trainable: stop_grad(param, trainable), params, trainables
    )


class _EagerTensor(np.ndarray):  # stand-in for tf's EagerTensor
    def numpy(self):
        return np.asarray(self)


class _TFDataset:  # stand-in for tf.data.Dataset.from_tensor_slices((X, y)).repeat().batch(nb)
    def __init__(self, X, y, nb):
        self.X, self.y, self.nb = np.asarray(X), np.asarray(y), nb
        self.pulled = 0

    def __iter__(self):
        n = self.X.shape[0]
        i = 0
        while True:
            self.pulled += 1
            idx = np.arange(i, i + self.nb) % n
            yield self.X[idx].view(_EagerTensor), self.y[idx].view(_EagerTensor)
            i += self.nb


@dataclass
class Dataset:
    """GPJax Dataset class. This supports batching through tensorflow.data with the '_tf_dataset' variable."""

    X: tp.Any
    y: tp.Any = None
    _tf_dataset: tp.Optional[tp.Any] = None

    @property
    def n(self) -> int:
        """The number of observations in the dataset."""
        return self.X.shape[0]

    def _make_tfd_if_none(self) -> None:
        """Creates TensorFlow Dataset to facilitate data batching operations."""
        if self._tf_dataset is None:
            self._tf_dataset = _TFDataset(self.X, self.y, 1)

    def get_batcher(self) -> tp.Callable[[None], "Dataset"]:
        """Creates a data batching object, that loads data from the
        tensorflow.data.Dataset object and returns it as a GPJax dataset.

        Returns:
            tp.Callable[[None], "Dataset"]: A batch loader.
        """
        self._make_tfd_if_none()
        tfd_iter = iter(self._tf_dataset)

        def next_batch() -> "Dataset":
            X_batch, y_batch = next(tfd_iter)  # expect: JIT202

            return Dataset(X=X_batch.numpy(), y=y_batch.numpy())

        return next_batch


def fit_batches(
    objective: tp.Callable,
    params: tp.Dict,
    trainables: tp.Dict,
    train_data: Dataset,
    optax_optim,
    n_iters: tp.Optional[int] = 100,
    log_rate: tp.Optional[int] = 10,
) -> tp.Dict:
    """Abstracted method for fitting a GP model with mini-batches respect to a supplied objective function.
    Optimisers used here should originate from Optax.
    """

    opt_state = optax_optim.init(params)
    next_batch = train_data.get_batcher()

    def loss(params, batch):
        params = trainable_params(params, trainables)
        return objective(params, batch)

    def step(params_opt_state, i):
        params, opt_state = params_opt_state
        batch = next_batch()  # tolerate: JIT202
        loss_val, loss_gradient = jax.value_and_grad(loss)(params, batch)
        updates, opt_state = optax_optim.update(loss_gradient, opt_state, params)
        params = optax.apply_updates(params, updates)
        params_opt_state = params, opt_state
        return params_opt_state, loss_val

    (params, _), _ = jax.lax.scan(step, (params, opt_state), jnp.arange(n_iters))

    return params


if __name__ == "__main__":
    # one observation per batch: y = 1, 2, 3, 4, 5; the loss pulls w towards the batch's y
    X = jnp.ones((5, 1))
    y = jnp.arange(1.0, 6.0).reshape(5, 1)
    D = Dataset(X=X, y=y, _tf_dataset=_TFDataset(X, y, nb=1))
    objective = lambda params, batch: jnp.sum((params["w"] - batch.y) ** 2)
    params = fit_batches(objective, {"w": jnp.array(0.0)}, {"w": True}, D,
                         optax.sgd(0.5), n_iters=5)
    # observed: line 84 draws one batch at trace time: 1 pull for 5 steps, w fits y[0] = 1
    assert D._tf_dataset.pulled == 1, D._tf_dataset.pulled
    assert abs(float(params["w"]) - 1.0) < 1e-6, params
