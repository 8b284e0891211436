# source: https://github.com/Sen-R/learning-jax/blob/550e26e0b6611fe53ba67d0c56b0d1b72d292f9e/learningjax/causal_lm.py
# observed on jax 0.10.2 CPU: see the observed line below; evaluate() is called once per epoch from train() and wraps a freshly built closure in jax.jit each time, so the validation metric is retraced and recompiled every epoch
# gap: per-call-recompile
# added: `from datasets import Dataset` (HuggingFace) replaced by a small in-memory stand-in with len() and .iter(batch_size, drop_last_batch); the Haiku model (learningjax/transformer.py via _cli/train_clm.py) replaced by a tiny embedding+linear apply(params, key, inputs) stand-in with a trace counter; jax.random.KeyArray (removed) spelled jax.Array; __main__ block with toy token data
# observed: line 109 compute_metric traced once per evaluate() call: 3 epochs give 3 validation traces (1 expected)
from typing import Callable, Dict, List, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np
import optax  # type: ignore
from tqdm import tqdm  # type: ignore


class Dataset:  # stand-in for datasets.Dataset
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def iter(self, batch_size, drop_last_batch=False):
        n = len(self.rows) // batch_size * batch_size if drop_last_batch else len(self.rows)
        for i in range(0, n, batch_size):
            yield {"input_ids": self.rows[i:i + batch_size]}


Params = Dict[str, Dict[str, jax.Array]]  # standard Haiku params type
ApplyFn = Callable[
    [Params, Optional[jax.Array], jax.Array], Dict[str, jax.Array]
]
LossFn = Callable[
    [Params, Optional[jax.Array], jax.Array], Tuple[jax.Array, jax.Array]
]
MetricFn = LossFn  # same signature, at least for time being


def _unreduced_weighted_loss(
    params: Params,
    key: Optional[jax.Array],
    batch: jax.Array,
    model: ApplyFn,
    pad_token_id: int,
) -> Tuple[jax.Array, jax.Array]:
    inputs, labels = batch["input_ids"], batch["labels"]
    sample_weights = inputs != pad_token_id
    logits = model(params, key, inputs)["logits"]
    xents = (
        optax.softmax_cross_entropy_with_integer_labels(logits, labels) * sample_weights
    )
    return xents, sample_weights


def build_metric_fn(model: ApplyFn, pad_token_id: int) -> MetricFn:
    def compute_metric(
        params: Params,
        key: Optional[jax.Array],
        batch: jax.Array,
    ) -> Tuple[jax.Array, jax.Array]:
        xents, sample_weights = _unreduced_weighted_loss(
            params, key, batch, model, pad_token_id
        )
        reduction_axes = range(xents.ndim - 1)  # Don't reduce over sequence dimension
        total_xents = jnp.sum(xents, axis=reduction_axes)
        total_weight = jnp.sum(sample_weights, axis=reduction_axes)
        return total_xents, total_weight

    return compute_metric


def build_loss_fn(model: ApplyFn, pad_token_id: int) -> LossFn:
    def compute_loss(
        params: Params, key: Optional[jax.Array], batch: jax.Array
    ) -> Tuple[jax.Array, jax.Array]:
        x_ents, sample_weights = _unreduced_weighted_loss(
            params, key, batch, model, pad_token_id
        )
        total_xents = jnp.sum(x_ents)
        total_weight = jnp.sum(sample_weights)
        return total_xents / total_weight, total_weight

    return compute_loss


def pad_and_convert_batch(
    batch: Dict[str, List[List[int]]], max_length: int, pad_token_id: int
) -> Dict[str, jax.Array]:
    tot_length = max_length + 1
    full = pad_token_id * np.ones((len(batch["input_ids"]), tot_length), dtype=np.int32)
    for i, row in enumerate(batch["input_ids"]):
        full[i, : min(tot_length, len(row))] = row[:tot_length]
    full_on_device = jax.device_put(full)
    return {"input_ids": full_on_device[..., :-1], "labels": full_on_device[..., 1:]}


def evaluate(
    params: Params,
    model: ApplyFn,
    dataset: Dataset,
    batch_size: int,
    key: jax.Array,
    max_length: int,
    pad_token_id: int,
    max_steps: Optional[int] = None,
) -> Tuple[jax.Array, jax.Array]:
    """Evaluate logits model on cross entropy loss."""
    total_loss = jnp.zeros((max_length,))
    total_weights = jnp.zeros((max_length,))
    compute_metric = jax.jit(build_metric_fn(model, pad_token_id))  # expect: JIT301
    num_batches = len(dataset) // batch_size
    max_steps = num_batches if max_steps is None else max_steps
    p_bar = tqdm(
        dataset.iter(batch_size=batch_size, drop_last_batch=True),
        desc="Starting",
        total=max_steps,
    )
    for step_no, batch in enumerate(p_bar):
        if step_no == max_steps:
            break
        processed = pad_and_convert_batch(batch, max_length, pad_token_id)
        key, subkey = jax.random.split(key)
        this_loss, this_weights = compute_metric(params, subkey, processed)
        total_loss = total_loss + this_loss
        total_weights = total_weights + this_weights
        tokens_so_far = jnp.sum(total_weights)
        loss_so_far = jnp.sum(total_loss) / tokens_so_far
        p_bar.set_description(
            f"Loss - {loss_so_far:.4f} | Tokens - {int(tokens_so_far):,d}"
        )
    return total_loss / total_weights, total_weights


def train(
    params: Params,
    model: ApplyFn,
    dataset: Dataset,
    batch_size: int,
    epochs: int,
    opt_state: optax.OptState,
    optimizer: optax.GradientTransformation,
    key: jax.Array,
    max_length: int,
    pad_token_id: int,
    *,
    steps_per_epoch: Optional[int] = None,
    val_dataset: Optional[Dataset] = None,
    val_batch_size: Optional[int] = None,
) -> Tuple[Params, optax.OptState]:
    loss_fn = build_loss_fn(model, pad_token_id)

    @jax.jit
    def update(
        params: Params,
        opt_state: optax.OptState,
        key: jax.Array,
        batch: jax.Array,
    ) -> Tuple[Params, optax.OptState, jax.Array, jax.Array]:
        (loss, batch_weight), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            params, key, batch
        )
        updates, opt_state = optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss, batch_weight

    num_batches = len(dataset) // batch_size
    steps_per_epoch = num_batches if steps_per_epoch is None else steps_per_epoch
    for epoch in range(1, epochs + 1):
        print(f"Epoch {epoch:{len(str(epochs))}d}/{epochs}")
        print("Training...")
        p_bar = tqdm(
            dataset.iter(batch_size=batch_size, drop_last_batch=True),
            total=steps_per_epoch,
            desc="Starting",
        )
        total_loss = 0.0
        total_weight = 0.0
        for step_no, batch in enumerate(p_bar):
            if step_no == steps_per_epoch:
                break
            processed = pad_and_convert_batch(batch, max_length, pad_token_id)
            key, subkey = jax.random.split(key)
            params, opt_state, mean_loss, this_weight = update(
                params, opt_state, subkey, processed
            )
            total_loss += mean_loss * this_weight
            total_weight += this_weight
            loss_so_far = total_loss / total_weight
            p_bar.set_description(
                f"Loss - {loss_so_far:.4f} | Tokens - {int(total_weight):,d}"
            )
        key, val_subkey = jax.random.split(key)
        if val_dataset is not None:
            val_batch_size = val_batch_size or batch_size
            print("Validating...")
            evaluate(
                params,
                model,
                val_dataset,
                val_batch_size,
                val_subkey,
                max_length,
                pad_token_id,
            )
        print()

    return params, opt_state


if __name__ == "__main__":
    VOCAB, DIM, MAX_LEN, PAD = 11, 8, 6, 0
    traces = {"train": 0, "val": 0}

    def model_apply(params, key, inputs):  # stand-in for the Haiku transformer's apply
        if isinstance(inputs, jax.core.Tracer):
            traces["val" if TRACE_PHASE[0] == "val" else "train"] += 1
        h = params["embed"]["w"][inputs]
        return {"logits": h @ params["out"]["w"]}

    TRACE_PHASE = ["train"]
    _orig_evaluate = evaluate

    def _evaluate(*a, **k):  # harness: tag traces that happen inside evaluate()
        TRACE_PHASE[0] = "val"
        try:
            return _orig_evaluate(*a, **k)
        finally:
            TRACE_PHASE[0] = "train"

    evaluate = _evaluate

    rng = np.random.RandomState(0)
    rows = [list(rng.randint(1, VOCAB, size=rng.randint(3, MAX_LEN + 2))) for _ in range(16)]
    k = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(k, 3)
    params = {"embed": {"w": jax.random.normal(k1, (VOCAB, DIM))},
              "out": {"w": jax.random.normal(k2, (DIM, VOCAB))}}
    opt = optax.adam(1e-2)
    epochs = 3
    train(params, model_apply, Dataset(rows), 4, epochs, opt.init(params), opt, k3,
          MAX_LEN, PAD, val_dataset=Dataset(rows[:8]))
    print("traces:", traces)
    assert traces["train"] == 1, traces
    assert traces["val"] == epochs, traces  # one retrace of compute_metric per epoch
    print("OK: compute_metric retraced every epoch")
