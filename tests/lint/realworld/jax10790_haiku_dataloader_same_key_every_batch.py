# source: https://github.com/jax-ml/jax/issues/10790 (the reporter's dm-haiku ResNet training
#   script, "Very slow compile" of a dm-haiku training step; only its `dataloader` is kept)
# observed on jax 0.10.2 CPU: the generator splits the same `key` on every pass of its
#   `while True` loop and never rebinds it, so every batch it yields is the same X and Y;
#   with jax_debug_key_reuse on, the second `next()` raises KeyReuseError at the split.
#   Added: the `__main__` block; the Haiku model, optimizer and train_step of the report
#   (the report is cut off after train_step) are left out.
# gap: other
import itertools

import jax
import jax.numpy as jnp


def dataloader(batch_size, *, key):
    while True:
        # Binary classification
        X_key, Y_key = jax.random.split(key)  # expect: JIT502
        X = jax.random.normal(X_key, (batch_size, 64, 64, 3))
        Y = jax.random.randint(Y_key, (batch_size,), 0, 2)
        yield X, Y


if __name__ == "__main__":
    batches = dataloader(4, key=jax.random.PRNGKey(0))
    (X0, Y0), (X1, Y1) = itertools.islice(batches, 2)
    # observed: line 18 splits the same key for every batch: the two batches are equal
    assert jnp.array_equal(X0, X1) and jnp.array_equal(Y0, Y1)

    jax.config.update("jax_debug_key_reuse", True)
    checked = dataloader(4, key=jax.random.key(0))
    next(checked)
    try:
        next(checked)
    except jax.errors.KeyReuseError as e:
        reused = e
    else:
        reused = None
    assert reused is not None
