# source: https://github.com/JaxGaussianProcesses/GPJax/blob/ecec1dfe02c6175fd0f0047376704ea15bbc4653/gpjax/abstractions.py
#   (fit_batches verbatim, as in https://github.com/JaxGaussianProcesses/GPJax/pull/99 before
#   its review changed the key handling (d61f37b9 "Scan over keys instead"); trainable_params
#   and stop_grad copied from gpjax/parameters.py, Dataset reduced to the fields and `n` it
#   uses, `jax.tree_map` (removed) spelled `jax.tree.map`, `chex.PRNGKey` annotation spelled
#   `jax.Array`. The @progress_bar_scan decorator on `step` (a tqdm bar through host_callback,
#   removed from JAX) is left out. Added: the objective, data and the __main__ block.)
# observed on jax 0.10.2 CPU: the scan body draws the minibatch indices from `current_key`
#   and then splits the same `current_key` for the next step; with jax_debug_key_reuse on
#   and a typed key, the split raises KeyReuseError ("In random_split, argument 0 is
#   already consumed"), pointing at that line.
# gap: other
import typing as tp

import jax
import jax.numpy as jnp
import jax.random as jr
import optax
from chex import dataclass

PRNGKeyType = jax.Array


@dataclass(frozen=True)
class InferenceState:
    params: tp.Dict
    history: tp.Any

    def unpack(self):
        return self.params, self.history


@dataclass
class Dataset:
    """GPJax Dataset class."""

    X: tp.Any
    y: tp.Any = None

    @property
    def n(self) -> int:
        """The number of observations in the dataset."""
        return self.X.shape[0]


def stop_grad(param: tp.Dict, trainable: tp.Dict):
    """When taking a gradient, we want to stop the gradient from flowing through a parameter if it is not trainable. This is achieved using the model's dictionary of parameters and the corresponding trainability status."""
    return jax.lax.cond(trainable, lambda x: x, jax.lax.stop_gradient, param)


def trainable_params(params: tp.Dict, trainables: tp.Dict) -> tp.Dict:
    """Stop the gradients flowing through parameters whose trainable status is False"""
    return jax.tree.map(
        lambda param, trainable: stop_grad(param, trainable), params, trainables
    )


def fit_batches(
    objective: tp.Callable,
    params: tp.Dict,
    trainables: tp.Dict,
    train_data: Dataset,
    optax_optim,
    key: PRNGKeyType,
    batch_size: int,
    n_iters: tp.Optional[int] = 100,
    log_rate: tp.Optional[int] = 10,
) -> InferenceState:
    """Abstracted method for fitting a GP model with mini-batches respect to a supplied objective function.
    Optimisers used here should originate from Optax.
    """

    opt_state = optax_optim.init(params)

    x, y, n = train_data.X, train_data.y, train_data.n

    def loss(params, batch):
        params = trainable_params(params, trainables)
        return objective(params, batch)

    def step(carry, _):
        params, opt_state, current_key = carry

        indicies = jr.choice(current_key, n, (batch_size,), replace=True)

        batch = Dataset(X=x[indicies], y=y[indicies])

        loss_val, loss_gradient = jax.value_and_grad(loss)(params, batch)
        updates, opt_state = optax_optim.update(loss_gradient, opt_state, params)
        params = optax.apply_updates(params, updates)

        _, new_key = jr.split(current_key)  # expect: JIT502

        carry = params, opt_state, new_key
        return carry, loss_val

    (params, _, _), history = jax.lax.scan(
        step, (params, opt_state, key), jnp.arange(n_iters)
    )
    inf_state = InferenceState(params=params, history=history)
    return inf_state


if __name__ == "__main__":
    import traceback

    jax.config.update("jax_debug_key_reuse", True)
    X = jnp.linspace(-1.0, 1.0, 20).reshape(20, 1)
    D = Dataset(X=X, y=2.0 * X)
    objective = lambda params, batch: jnp.mean((params["w"] * batch.X - batch.y) ** 2)
    try:
        fit_batches(objective, {"w": jnp.array(0.0)}, {"w": True}, D, optax.adam(0.1),
                    jr.key(0), batch_size=4, n_iters=5)
        raise SystemExit("no KeyReuseError")
    except jax.errors.KeyReuseError as err:
        frames = traceback.extract_tb(err.__cause__.__traceback__) if err.__cause__ else []
        lines = {f.lineno for f in frames if f.filename == __file__}
        # observed: line 92 splits current_key after jr.choice consumed it: KeyReuseError
        assert 92 in lines, (lines, err)
