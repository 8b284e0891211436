# source: https://github.com/DarshanDeshpande/jax-models/blob/0d59f478fa00a456460e1b25d2594464e8861b6e/jax_models/layers/mask.py
# observed on jax 0.10.2 CPU: with flax 0.12.8, the MAE `Mask` layer returns a mask of all ones
#   under `jax.jit`: `mask.at[:, :keep_len].set(0)` builds a new array that is thrown away, so
#   `mask` stays `jnp.ones` and the kept patches are never marked 0 (with `mask_ratio=0.75` and
#   16 patches each row should hold 12 ones and 4 zeros). The masked patches themselves are
#   gathered correctly. Kept: the library's `Mask` layer as written (the MAE encoder calls it as
#   `Mask()(x, self.mask_ratio)`). Added: a batch of patch embeddings and a
#   jitted call with the "noise" key passed in.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as random

import flax.linen as nn


class Mask(nn.Module):
    def __call__(self, x, mask_ratio):
        batch, length, dim = x.shape
        keep_len = int(length * (1 - mask_ratio))

        rng = self.make_rng("noise")
        noise = random.uniform(rng, (batch, length))
        ids_shuffle = jnp.argsort(noise, axis=1)
        ids_restore = jnp.argsort(ids_shuffle, axis=1)

        ids_keep = ids_shuffle[:, :keep_len]
        expanded = jnp.expand_dims(ids_keep, -1)

        repeat = jnp.tile(expanded, (1, 1, dim))
        masked = jnp.take_along_axis(x, repeat, axis=1)

        mask = jnp.ones([batch, length])
        mask.at[:, :keep_len].set(0)  # expect: JIT503
        mask = jnp.take_along_axis(mask, ids_restore, axis=1)

        return masked, mask, ids_restore


@jax.jit
def random_masking(x, key):
    return Mask().apply({}, x, 0.75, rngs={"noise": key})


if __name__ == "__main__":
    x = jnp.arange(2 * 16 * 3, dtype=jnp.float32).reshape(2, 16, 3)
    masked, mask, ids_restore = random_masking(x, jax.random.PRNGKey(0))
    assert masked.shape == (2, 4, 3)
    # observed: line 34 discards its update: the returned mask is all ones instead of 12 ones
    # and 4 zeros per row
    assert bool(jnp.all(mask == 1.0))
