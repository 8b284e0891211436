# source: https://github.com/p-doom/jasmine/pull/239 (jasmine/models/tokenizer.py,
#   TokenizerMAE.mask_and_encode, at the parent of commit e754e4d "fix typo in rngs", which
#   replaced `jax.random.key(0)` by the `rng` the method is given; the PR's author flagged it
#   in review: "We are initializing the same key every step. Have to fix this.")
# observed on jax 0.10.2 CPU: with flax 0.12.8, every training step masks the same patches:
#   the method ignores the fresh `batch["rng"]` that the training loop splits per step and
#   splits a constant `jax.random.key(0)` instead, so two steps with different keys give
#   identical masks and identical encodings. Stand-ins: the module keeps only
#   `mask_and_encode` and the fields it reads (the STTransformer encoder is an `nnx.Linear`,
#   the decoder and `__call__` are left out); `patchify` (einops in jasmine.utils) is a
#   reshape with the same result for sizes that divide H and W; the `__main__` driver
#   follows train_tokenizer_mae.py's loop (`rng, _rng = jax.random.split(rng)`,
#   `batch["rng"] = _rng`) with an `nnx.jit` step that calls the method; imports added.
# gap: other
from typing import Dict

import flax.nnx as nnx
import jax
import jax.numpy as jnp


def patchify(videos: jax.Array, size: int) -> jax.Array:
    B, T, H, W, C = videos.shape
    x = videos.reshape(B, T, H // size, size, W // size, size, C)
    x = x.transpose(0, 1, 2, 4, 3, 5, 6)
    return x.reshape(B, T, (H // size) * (W // size), size * size * C)


class TokenizerMAE(nnx.Module):
    def __init__(self, in_dim, latent_dim, patch_size, max_mask_ratio, rngs: nnx.Rngs):
        self.in_dim = in_dim
        self.patch_size = patch_size
        self.max_mask_ratio = max_mask_ratio
        self.encoder = nnx.Linear(self.in_dim * self.patch_size**2, latent_dim, rngs=rngs)
        self.mask_patch = nnx.Param(
            nnx.initializers.lecun_uniform()(
                rngs.params(), (1, 1, 1, self.in_dim * self.patch_size**2)
            )
        )

    def mask_and_encode(
        self, videos: jax.Array, rng: nnx.Rngs, training: bool = True
    ) -> Dict[str, jax.Array]:
        # --- Preprocess videos ---
        B, T = videos.shape[:2]
        patch_BTNP = patchify(videos, self.patch_size)
        N = patch_BTNP.shape[2]

        # --- Randomly mask patches ---
        if training:
            _rng_prob, _rng_mask = jax.random.split(jax.random.key(0), 2)  # expect: JIT502
            mask_prob = jax.random.uniform(
                _rng_prob, shape=(B * T,), minval=0, maxval=self.max_mask_ratio
            )
            mask = jax.vmap(
                lambda rng, prob: jax.random.bernoulli(rng, prob, (N,)),
                in_axes=(0, 0),
            )(jax.random.split(_rng_mask, B * T), mask_prob)
            mask_BTN = mask.reshape(B, T, N)
            patch_BTNP = jnp.where(
                mask_BTN[..., None], self.mask_patch.value, patch_BTNP
            )

        # --- Encode ---
        z_BTNL = self.encoder(patch_BTNP)
        # squeeze latents through tanh as descibed in Dreamer 4 section 3.1
        z_BTNL = nnx.tanh(z_BTNL)
        outputs = dict(z=z_BTNL)
        return outputs


@nnx.jit
def encode_step(model: TokenizerMAE, inputs: dict):
    return model.mask_and_encode(inputs["videos"], inputs["rng"], training=True)["z"]


if __name__ == "__main__":
    rng = jax.random.key(0)
    rng, _rng = jax.random.split(rng)
    tokenizer = TokenizerMAE(3, 8, 4, 0.9, rngs=nnx.Rngs(_rng))
    videos = jnp.linspace(0.0, 1.0, 2 * 2 * 8 * 8 * 3).reshape(2, 2, 8, 8, 3)

    zs = []
    for step in range(2):
        rng, _rng = jax.random.split(rng)
        batch = {"videos": videos, "rng": _rng}
        zs.append(encode_step(tokenizer, batch))
    # observed: line 51 splits the same constant key on every step: the two steps, given
    #   different batch["rng"] keys, mask the same patches and encode identically
    assert jnp.array_equal(zs[0], zs[1])
    assert not jnp.array_equal(zs[0], tokenizer.mask_and_encode(videos, None, training=False)["z"])
