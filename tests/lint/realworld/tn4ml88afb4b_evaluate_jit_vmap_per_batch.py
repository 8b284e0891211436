# source: https://github.com/bsc-quantic/tn4ml/blob/88afb4b9af22870032d7ea7b387d3a6ae564d2fc/tn4ml/models/model.py (Model.evaluate; fixed in 6fa2efba20420b806406beb54e27d777c6efa7fa "Update model.py for better cpu usage", which drops the per-call jax.jit)
# observed on jax 0.10.2 CPU: every call of the inner loss_fn (once per evaluation batch) wraps a fresh jax.vmap(single_loss) in jax.jit, so the vmapped loss is traced and compiled again for every batch although all batches have the same shape (3 batches -> 3 traces for each evaluate_type)
# gap: per-call-recompile
# added: imports; stand-ins for what the method uses from quimb/tn4ml (Model reduced to .arrays/.tensors/.copy()/.loss/.device/.strategy, a tensor with .modify(data=...), embed, TrainingType, Sweeps, Global, and a simple _batch_iterator); the evaluate docstring is cut to its first line; the __main__ block
# observed: line 153 (evaluate_type=UNSUPERVISED) jits a fresh jax.vmap(single_loss) on every loss_fn call: 3 traces of the vmapped loss for 3 equal-shape batches
# observed: line 158 (evaluate_type=SUPERVISED) jits a fresh jax.vmap(single_loss) on every loss_fn call: 3 traces of the vmapped loss for 3 equal-shape batches
# observed: line 163 (evaluate_type=TARGET_TN) jits a fresh jax.vmap(single_loss) on every loss_fn call: 3 traces of the vmapped loss for 3 equal-shape batches
import enum
import types
from typing import Any, Callable, Collection, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np


qtn = types.SimpleNamespace(TensorNetwork=object)  # stand-in for quimb.tensor


class TrainingType(enum.IntEnum):
    UNSUPERVISED = 0
    SUPERVISED = 1
    TARGET_TN = 2


class Sweeps:
    pass


class Global:
    pass


class Embedding:
    pass


class TrigonometricEmbedding(Embedding):
    pass


def embed(x, embedding):
    return jnp.stack([jnp.cos(x), jnp.sin(x)], axis=-1)


def _batch_iterator(x, y=None, batch_size=2, dtype=jnp.float_, shuffle=True, seed=0, alternate_flip=False):
    x = jnp.asarray(x, dtype=dtype)
    for i in range(0, len(x) - batch_size + 1, batch_size):
        if y is not None:
            yield x[i:i + batch_size], jnp.asarray(y)[i:i + batch_size]
        else:
            yield x[i:i + batch_size]


class _Tensor:
    def __init__(self, data):
        self.data = data

    def modify(self, data):
        self.data = data


TRACES = []


class Model:
    def __init__(self, n_sites=4):
        self.tensors = [_Tensor(jnp.ones((2,)) * (i + 1)) for i in range(n_sites)]
        self.device = ("cpu", 0)
        self.strategy = Global()

    @property
    def arrays(self):
        return tuple(t.data for t in self.tensors)

    def copy(self):
        new = Model.__new__(Model)
        new.tensors = [_Tensor(t.data) for t in self.tensors]
        new.device, new.strategy = self.device, self.strategy
        return new

    def loss(self, tn, tn_i, y=None):
        TRACES.append(1)
        if isinstance(tn_i, Model):
            return sum(jnp.sum(a * b) for a, b in zip(tn.arrays, tn_i.arrays))
        out = sum(jnp.sum(t.data * tn_i[k]) for k, t in enumerate(tn.tensors))
        return out if y is None else (out - y[0]) ** 2

    def evaluate(
        self,
        inputs: Collection = None,
        targets: Optional[Any] = None,
        tn_target: Optional[qtn.TensorNetwork] = None,
        batch_size: Optional[int] = None,
        embedding: Embedding = TrigonometricEmbedding(),
        evaluate_type: int = TrainingType.UNSUPERVISED,
        return_list: bool = False,
        metric: Optional[Callable] = None,
        dtype: Any = jnp.float_,
        shuffle: Optional[bool] = False,
        seed: Optional[int] = 42,
        alternate_flip: Optional[bool] = False,
    ) -> Union[float, np.ndarray]:
        """Evaluates the model on the data."""

        if evaluate_type not in [
            TrainingType.UNSUPERVISED,
            TrainingType.SUPERVISED,
            TrainingType.TARGET_TN,
        ]:
            raise ValueError(
                f"Specify type of evaluation: {TrainingType.UNSUPERVISED.name}, {TrainingType.SUPERVISED.name}, or {TrainingType.TARGET_TN.name}!"
            )

        if hasattr(self, "batch_size"):
            if batch_size is None:
                batch_size = self.batch_size

        if not hasattr(self, "batch_size"):
            self.batch_size = batch_size

        if return_list:
            loss: list = []

        def loss_fn(data=None, targets=None, *params):
            """
            Batches embedding + loss computation internally, with model params fixed externally.
            """
            tn = self.copy()

            if hasattr(self, "sitetags") and self.sitetags is not None:
                tn.select_tensors(self.sitetags)[0].modify(data=params[0])
            else:
                for tensor, array in zip(tn.tensors, params):
                    tensor.modify(data=array)

            # Define batched version of embed + loss logic
            def single_loss(x, y=None):
                tn_i = embed(x, embedding)  # create TN from data

                if evaluate_type == TrainingType.UNSUPERVISED:
                    return self.loss(tn, tn_i)
                elif evaluate_type == TrainingType.SUPERVISED:
                    return self.loss(tn, tn_i, y)
                else:
                    assert evaluate_type == TrainingType.TARGET_TN, (
                        "Train type must be TARGET_TN!"
                    )
                    return self.loss(tn, tn_target)

            # Choose vmap axis setup
            if evaluate_type == TrainingType.UNSUPERVISED:
                vmapped_loss = jax.jit(  # expect: JIT301
                    jax.vmap(single_loss, in_axes=(0,)), backend=self.device[0]
                )  # only data needed
                return vmapped_loss(data)
            elif evaluate_type == TrainingType.SUPERVISED:
                vmapped_loss = jax.jit(  # expect: JIT301
                    jax.vmap(single_loss, in_axes=(0, 0)), backend=self.device[0]
                )  # both data and targets batched
                return vmapped_loss(data, targets)
            else:  # TARGET_TN
                vmapped_loss = jax.jit(  # expect: JIT301
                    jax.vmap(single_loss, in_axes=(0,)), backend=self.device[0]
                )  # only data needed
                return vmapped_loss(data)

        if inputs is not None:
            loss_value: Any = 0
            for batch_data in _batch_iterator(
                inputs,
                targets,
                batch_size,
                dtype=dtype,
                shuffle=shuffle,
                seed=seed,
                alternate_flip=alternate_flip,
            ):
                if isinstance(batch_data, tuple) and len(batch_data) == 2:
                    x, y = batch_data
                    x, y = jnp.array(x, dtype=dtype), jnp.array(y)
                    x = jax.device_put(
                        x, device=jax.devices(self.device[0])[self.device[1]]
                    )
                    y = jax.device_put(
                        y, device=jax.devices(self.device[0])[self.device[1]]
                    )
                else:
                    x = jnp.array(batch_data, dtype=dtype)
                    x = jax.device_put(
                        x, device=jax.devices(self.device[0])[self.device[1]]
                    )
                    y = None

                if isinstance(self.strategy, Sweeps):
                    loss_curr = np.zeros((x.shape[0],))
                    for s, sites in enumerate(self.strategy.iterate_sites(self)):
                        self.strategy.prehook(self, sites)

                        self.sitetags = [self.site_tag(site) for site in sites]

                        params_i = self.select_tensors(self.sitetags)[0].data
                        params_i = jnp.expand_dims(params_i, axis=0)

                        loss_group = loss_fn(x, y, *params_i)

                        self.strategy.posthook(self, sites)

                        loss_curr += loss_group
                    loss_curr /= s + 1
                else:
                    params = self.arrays
                    loss_curr = loss_fn(x, y, *params)

                loss_value += np.mean(loss_curr)

                if return_list:
                    loss.extend(loss_curr)

            if return_list:
                return np.array(loss)

            loss_value = loss_value / (len(inputs) // batch_size)
        else:
            assert (
                evaluate_type == TrainingType.TARGET_TN
            )  # If inputs are not provided, evaluation type must be 2!
            assert (
                tn_target is not None
            )  # If inputs are not provided, target tensor network must be provided!

            params = self.arrays
            loss_value = loss_fn(None, None, *params)
        return float(loss_value)


if __name__ == "__main__":
    model = Model()
    inputs = np.linspace(0.0, 1.0, 6 * 4, dtype=np.float32).reshape(6, 4)
    targets = np.ones((6, 1), dtype=np.float32)
    for evaluate_type, kw in [
        (TrainingType.UNSUPERVISED, {}),
        (TrainingType.SUPERVISED, {"targets": targets}),
        (TrainingType.TARGET_TN, {"tn_target": model.copy()}),
    ]:
        TRACES.clear()
        value = model.evaluate(inputs, batch_size=2, evaluate_type=evaluate_type, **kw)
        print(evaluate_type.name, "loss", round(value, 4), "traces of the vmapped loss over 3 equal-shape batches:", len(TRACES))
        assert len(TRACES) == 3
