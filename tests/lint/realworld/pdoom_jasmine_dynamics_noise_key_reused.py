# source: https://github.com/p-doom/jasmine/blob/fa9afacf62a0974e93a32bfeb9b120f4fce42993/jasmine/models/dynamics.py
#   Jasmine's MaskGIT dynamics model (flax nnx) with noise augmentation against exposure bias:
#   each sample draws a noise level and Gaussian noise for its frame embeddings (PR p-doom/jasmine#214).
# observed on jax 0.10.2 CPU: the noise level (uniform) and the noise itself (normal) are both
#   drawn from `_rng_noise`, so they come from the same random bits; with JAX's key-reuse checker
#   on, the jitted step raises KeyReuseError at the `jax.random.normal` line (reviewer on #214:
#   "Do not reuse rng keys"; fixed in 57dee33 "made noise augmentation safer", split(rng, 3)).
#   Changed: nothing in DynamicsMaskGIT (DynamicsCausal, below it in the file, is left out).
#   Added: a stand-in for utils.nn.STTransformer (one nnx.Linear), small sizes, the __main__ block
#   (typed keys from jax.random.key and jax_debug_key_reuse so JAX reports the reuse).
# gap: other
from typing import Dict

import jax
import jax.numpy as jnp
import flax.nnx as nnx



class STTransformer(nnx.Module):  # stand-in for utils.nn.STTransformer: one Linear to the vocabulary
    def __init__(self, input_dim, model_dim, ffn_dim, out_dim, num_blocks, num_heads, dropout,
                 param_dtype, dtype, use_flash_attention, rngs):
        self.out = nnx.Linear(input_dim, out_dim, param_dtype=param_dtype, dtype=dtype, rngs=rngs)

    def __call__(self, x):
        return self.out(x)


class DynamicsMaskGIT(nnx.Module):
    """
    MaskGIT dynamics model

    Dimension keys:
        B: batch size
        T: sequence length
        N: number of patches per frame
        L: latent dimension
        V: vocabulary size (number of latents)
    """

    def __init__(
        self,
        model_dim: int,
        ffn_dim: int,
        num_latents: int,
        latent_action_dim: int,
        num_blocks: int,
        num_heads: int,
        dropout: float,
        max_noise_level: float,
        noise_buckets: int,
        mask_limit: float,
        param_dtype: jnp.dtype,
        dtype: jnp.dtype,
        use_flash_attention: bool,
        rngs: nnx.Rngs,
    ):
        self.model_dim = model_dim
        self.ffn_dim = ffn_dim
        self.num_latents = num_latents
        self.latent_action_dim = latent_action_dim
        self.num_blocks = num_blocks
        self.num_heads = num_heads
        self.dropout = dropout
        self.max_noise_level = max_noise_level
        self.noise_buckets = noise_buckets
        self.mask_limit = mask_limit
        self.param_dtype = param_dtype
        self.dtype = dtype
        self.use_flash_attention = use_flash_attention

        self.transformer = STTransformer(
            self.model_dim,
            self.model_dim,
            self.ffn_dim,
            self.num_latents,
            self.num_blocks,
            self.num_heads,
            self.dropout,
            self.param_dtype,
            self.dtype,
            use_flash_attention=self.use_flash_attention,
            rngs=rngs,
        )
        self.patch_embed = nnx.Embed(self.num_latents, self.model_dim, rngs=rngs)
        self.mask_token = nnx.Param(
            nnx.initializers.lecun_uniform()(rngs.params(), (1, 1, 1, self.model_dim))
        )
        self.action_up = nnx.Linear(
            self.latent_action_dim,
            self.model_dim,
            param_dtype=self.param_dtype,
            dtype=self.dtype,
            rngs=rngs,
        )
        self.noise_level_embed = nnx.Embed(
            self.noise_buckets, self.model_dim, rngs=rngs
        )

    def __call__(
        self,
        batch: Dict[str, jax.Array],
    ) -> tuple[jax.Array, jax.Array]:
        # --- Mask videos ---
        video_tokens_BTN = batch["video_tokens"]
        latent_actions_BTm11L = batch["latent_actions"]
        vid_embed_BTNM = self.patch_embed(video_tokens_BTN)

        B, T, N, M = vid_embed_BTNM.shape
        rng, _rng_prob, *_rngs_mask = jax.random.split(batch["mask_rng"], B + 2)
        mask_prob = jax.random.uniform(_rng_prob, shape=(B,), minval=self.mask_limit)
        per_sample_shape = vid_embed_BTNM.shape[1:-1]
        mask = jax.vmap(
            lambda rng, prob: jax.random.bernoulli(rng, prob, per_sample_shape),
            in_axes=(0, 0),
        )(jnp.asarray(_rngs_mask), mask_prob)
        mask = mask.at[:, 0].set(False)
        vid_embed_BTNM = jnp.where(
            jnp.expand_dims(mask, -1), self.mask_token.value, vid_embed_BTNM
        )

        # --- Sample noise ---
        rng, _rng_noise = jax.random.split(rng)
        noise_level_B = jax.random.uniform(
            _rng_noise, shape=(B,), minval=0.0, maxval=self.max_noise_level
        )
        noise_BTNM = jax.random.normal(_rng_noise, shape=(B, T, N, M))  # expect: JIT502
        noise_bucket_idx_B = jnp.floor(
            (noise_level_B / self.max_noise_level) * self.noise_buckets
        ).astype(jnp.int32)
        noise_bucket_idx_B11 = noise_bucket_idx_B.reshape(B, 1, 1)
        noise_level_embed_B11M = self.noise_level_embed(noise_bucket_idx_B11)
        noise_level_embed_BT1M = jnp.tile(noise_level_embed_B11M, (1, T, 1, 1))
        noise_level_B111 = noise_level_B.reshape(B, 1, 1, 1)
        vid_embed_BTNM = (
            jnp.sqrt(1 - noise_level_B111) * vid_embed_BTNM
            + jnp.sqrt(noise_level_B111) * noise_BTNM
        )

        # --- Predict transition ---
        act_embed_BTm11M = self.action_up(latent_actions_BTm11L)
        padded_act_embed_BT1M = jnp.pad(
            act_embed_BTm11M, ((0, 0), (1, 0), (0, 0), (0, 0))
        )
        vid_embed_BTNp2M = jnp.concatenate(
            [padded_act_embed_BT1M, noise_level_embed_BT1M, vid_embed_BTNM], axis=2
        )
        logits_BTNp2V = self.transformer(vid_embed_BTNp2M)
        logits_BTNV = logits_BTNp2V[:, :, 2:]
        return logits_BTNV, mask


if __name__ == "__main__":
    import traceback
    model = DynamicsMaskGIT(model_dim=16, ffn_dim=32, num_latents=8, latent_action_dim=4,
                            num_blocks=1, num_heads=2, dropout=0.0, max_noise_level=0.7,
                            noise_buckets=10, mask_limit=0.5, param_dtype=jnp.float32,
                            dtype=jnp.float32, use_flash_attention=False, rngs=nnx.Rngs(0))
    B, T, N = 2, 3, 4
    batch = {
        "video_tokens": jnp.zeros((B, T, N), dtype=jnp.int32),
        "latent_actions": jnp.zeros((B, T - 1, 1, 4)),
        "mask_rng": jax.random.key(1),
    }

    @nnx.jit
    def forward(model, batch):
        return model(batch)

    jax.config.update("jax_debug_key_reuse", True)
    # observed: line 127 the second draw from `_rng_noise` is reported by JAX's key-reuse checker
    try:
        forward(model, batch)
    except Exception as e:
        assert type(e).__name__ == "KeyReuseError", type(e)
        # JAX attaches the stack of the offending operation as the error's cause
        lines = [fr.lineno for fr in traceback.extract_tb(e.__cause__.__traceback__) if fr.filename == __file__]
        assert lines[-1] == 127, lines
    else:
        raise AssertionError("no key reuse reported")
