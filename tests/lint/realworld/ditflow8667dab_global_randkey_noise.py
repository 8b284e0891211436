# source: https://github.com/kelechi-c/dit_flow/blob/8667dabe23dc91d61b6441b4b29d35ff639a2b66/dit_trainer.py
# observed on jax 0.10.2 CPU: see the observed lines; the flow-matching train_step draws its noise x_0 and its time t from the module-level key `randkey`, which is never split or advanced: every training step uses the same noise and the same t, and t comes from the same key as x_0
# gap: flow-sensitive
# observed: line 360 three train_step calls: the noise x_0 recovered from the x_t the model receives is identical in every step (randkey is a module global that is never advanced)
# observed: line 361 t is identical in every step too, and with jax_debug_key_reuse the call raises KeyReuseError at this line: randkey was already consumed by the x_0 draw
# (kept: config, randkey/rngs, the model classes and train_step; dropped: wandb/torch/diffusers VAE/streaming data loading, image grid/decoding helpers, DiT.flow_step/DiT.sample, batch_trainer and the click main)
# (einops is not installed: `rearrange` is a small stand-in for the two patterns used here)
# (nnx.Optimizer(model, tx) and optimizer.update(grads) renamed to the current nnx.Optimizer(model, tx, wrt=nnx.Param) (in __main__) and optimizer.update(model, grads) (in train_step))
# (DiT.dit_layers wrapped in nnx.List, which flax 0.12 requires for a list of submodules)
# (the LabelEmbedder.token_drop draw from the same constant key is tolerated: it is unreachable with drop=0.0, the DiT default)
# (__main__ block added: a tiny DiT and random latents in place of the 1024-dim, 24-layer model and ImageNet latents)
import jax, optax, os, math
import numpy as np
from flax import nnx
from jax import Array, numpy as jnp, random as jrand
from jax import random as jrand
jax.config.update("jax_default_matmul_precision", "bfloat16")

from typing import Any


def rearrange(x, pattern, **kw):  # stand-in for einops.rearrange
    if pattern == "b h w c -> b (h w) c":
        return x.reshape(x.shape[0], -1, x.shape[-1])
    if pattern == "b c h w -> b h w c":
        return x.transpose(0, 2, 3, 1)
    raise NotImplementedError(pattern)

class config:
    seed = 333
    batch_size = 128
    data_split = 10000
    img_size = 32
    patch_size = (2, 2)
    lr = 2e-4
    cfg_scale = 2.0
    vaescale_factor = 0.13025
    data_id = "cloneofsimo/imagenet.int8"
    vae_id = "madebyollin/sdxl-vae-fp16-fix"
    imagenet_id = "ILSVRC/imagenet-1k"



rngs = nnx.Rngs(config.seed)
randkey = jrand.key(config.seed)

xavier_init = nnx.initializers.xavier_uniform()
zero_init = nnx.initializers.constant(0.0)
normal_init = nnx.initializers.normal(0.02)


## helpers/util functions
def modulate(x, shift, scale):
    return x * (1 + scale[:, None]) + shift[:, None]


# From https://github.com/young-geng/m3ae_public/blob/master/m3ae/model.py
def get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = jnp.arange(embed_dim // 2, dtype=jnp.float32)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega  # (D/2,)

    pos = pos.reshape(-1)  # (M,)
    out = jnp.einsum("m,d->md", pos, omega)  # (M, D/2), outer product

    emb_sin = jnp.sin(out)  # (M, D/2)
    emb_cos = jnp.cos(out)  # (M, D/2)

    emb = jnp.concatenate([emb_sin, emb_cos], axis=1)  # (M, D)
    return emb


def get_1d_sincos_pos_embed(embed_dim, length):
    return jnp.expand_dims(
        get_1d_sincos_pos_embed_from_grid(
            embed_dim, jnp.arange(length, dtype=jnp.float32)
        ), axis=0
    )


def get_2d_sincos_pos_embed(embed_dim, length):
    # example: embed_dim = 256, length = 16*16
    grid_size = int(length**0.5)
    assert grid_size * grid_size == length

    def get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
        assert embed_dim % 2 == 0
        # use half of dimensions to encode grid_h
        emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])  # (H*W, D/2)
        emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])  # (H*W, D/2)
        emb = jnp.concatenate([emb_h, emb_w], axis=1)  # (H*W, D)
        return emb

    grid_h = jnp.arange(grid_size, dtype=jnp.float32)
    grid_w = jnp.arange(grid_size, dtype=jnp.float32)
    grid = jnp.meshgrid(grid_w, grid_h)  # here w goes first
    grid = jnp.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    pos_embed = get_2d_sincos_pos_embed_from_grid(embed_dim, grid)
    return jnp.expand_dims(pos_embed, 0)  # (1, H*W, D)


class PatchEmbed:
    def __init__(
        self, in_channels=4, img_size: int = 32, dim=1024, patch_size: int = 2
    ):
        self.dim = dim
        self.patch_size = patch_size
        patch_tuple = (patch_size, patch_size)
        self.num_patches = (img_size // self.patch_size) ** 2
        self.conv_project = nnx.Conv(
            in_channels,
            dim,
            kernel_size=patch_tuple,
            strides=patch_tuple,
            use_bias=False,
            padding="VALID",
            kernel_init=xavier_init,
            rngs=rngs,
        )

    def __call__(self, x):
        B, H, W, C = x.shape
        num_patches_side = H // self.patch_size
        x = self.conv_project(x)  # (B, P, P, hidden_size)
        x = rearrange(x, "b h w c -> b (h w) c", h=num_patches_side, w=num_patches_side)
        return x


class TimestepEmbedder(nnx.Module):
    def __init__(self, hidden_size, freq_embed_size=256):
        super().__init__()
        self.lin_1 = nnx.Linear(freq_embed_size, hidden_size, rngs=rngs)
        self.lin_2 = nnx.Linear(hidden_size, hidden_size, rngs=rngs)
        self.freq_embed_size = freq_embed_size

    @staticmethod
    def timestep_embedding(time_array: Array, dim, max_period=10000):
        half = dim // 2
        freqs = jnp.exp(-math.log(max_period) * jnp.arange(0, half) / half)

        args = jnp.float_(time_array[:, None]) * freqs[None]

        embedding = jnp.concat([jnp.cos(args), jnp.sin(args)], axis=-1)
        if dim % 2:
            embedding = jnp.concat(
                [embedding, jnp.zeros_like(embedding[:, :1])], axis=-1
            )

        return embedding

    def __call__(self, x: Array) -> Array:
        t_freq = self.timestep_embedding(x, self.freq_embed_size)
        t_embed = nnx.silu(self.lin_1(t_freq))

        return self.lin_2(t_embed)


class LabelEmbedder(nnx.Module):
    def __init__(self, num_classes, hidden_size, drop):
        super().__init__()
        use_cfg_embeddings = drop > 0
        self.embedding_table = nnx.Embed(
            num_classes + int(use_cfg_embeddings),
            hidden_size,
            rngs=rngs,
            embedding_init=nnx.initializers.normal(0.02),
        )
        self.num_classes = num_classes
        self.dropout = drop

    def token_drop(self, labels, force_drop_ids=None) -> Array:
        if force_drop_ids is None:
            drop_ids = jrand.normal(key=randkey, shape=labels.shape[0])  # tolerate: JIT502
        else:
            drop_ids = force_drop_ids == 1

        labels = jnp.where(drop_ids, self.num_classes, labels)

        return labels

    def __call__(self, labels, train: bool = True, force_drop_ids=None) -> Array:
        use_drop = self.dropout > 0
        if (train and use_drop) or (force_drop_ids is not None):
            labels = self.token_drop(labels, force_drop_ids)

        label_embeds = self.embedding_table(labels)

        return label_embeds


class CaptionEmbedder(nnx.Module):
    def __init__(self, cap_embed_dim, embed_dim, rngs=nnx.Rngs(config.seed)):
        super().__init__()
        self.linear_1 = nnx.Linear(cap_embed_dim, embed_dim, rngs=rngs)
        self.linear_2 = nnx.Linear(embed_dim, embed_dim, rngs=rngs)

    def __call__(self, x: Array) -> Array:
        x = nnx.silu(self.linear_1(x))
        x = self.linear_2(x)

        return x


class FeedForward(nnx.Module):
    def __init__(self, dim: int, rngs=nnx.Rngs(config.seed)):
        super().__init__()
        self.dim = dim
        self.mlp_dim = 2 * dim
        self.linear_1 = nnx.Linear(dim, self.mlp_dim, rngs=rngs)
        self.linear_2 = nnx.Linear(self.mlp_dim, dim, rngs=rngs)

    def __call__(self, x: Array):
        x = self.linear_1(x)
        x = self.linear_2(nnx.gelu(x))

        return x


class DiTBlock(nnx.Module):
    def __init__(
        self, dim: int, attn_heads: int, drop: float = 0.0, rngs=nnx.Rngs(config.seed)
    ):
        super().__init__()
        self.dim = dim
        self.norm_1 = nnx.LayerNorm(dim, epsilon=1e-6, rngs=rngs, bias_init=zero_init)
        self.norm_2 = nnx.LayerNorm(dim, epsilon=1e-6, rngs=rngs, bias_init=zero_init)
        self.attention = nnx.MultiHeadAttention(
            num_heads=attn_heads,
            in_features=dim,
            decode=False,
            dropout_rate=drop,
            rngs=rngs,
        )
        self.adaln = nnx.Linear(
            dim, 6 * dim, kernel_init=zero_init, bias_init=zero_init, rngs=rngs
        )
        self.mlp_block = FeedForward(dim)

    def __call__(self, x_img: Array, cond: Array):
        cond = self.adaln(nnx.silu(cond))
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = (
            jnp.array_split(cond, 6, axis=-1)
        )

        attn_x = self.attention(modulate(self.norm_1(x_img), shift_msa, scale_msa))
        x = x_img + (jnp.expand_dims(gate_msa, 1) * attn_x)

        x = modulate(self.norm_2(x), shift_mlp, scale_mlp)
        mlp_x = self.mlp_block(x)
        x = x + (jnp.expand_dims(gate_mlp, 1) * mlp_x)

        return x


class FinalMLP(nnx.Module):
    def __init__(
        self, hidden_size, patch_size, out_channels, rngs=nnx.Rngs(config.seed)
    ):
        super().__init__()

        self.norm_final = nnx.LayerNorm(hidden_size, epsilon=1e-6, rngs=rngs)
        self.linear = nnx.Linear(
            hidden_size,
            patch_size[0] * patch_size[1] * out_channels,
            rngs=rngs,
            kernel_init=nnx.initializers.xavier_uniform(),
            bias_init=zero_init,
        )

        self.adaln_linear = nnx.Linear(
            hidden_size,
            2 * hidden_size,
            rngs=rngs,
            kernel_init=nnx.initializers.xavier_uniform(),
            bias_init=zero_init,
        )

    def __call__(self, x_input: Array, cond: Array):
        linear_cond = nnx.silu(self.adaln_linear(cond))
        shift, scale = jnp.array_split(linear_cond, 2, axis=-1)

        x = modulate(self.norm_final(x_input), shift, scale)
        x = self.linear(x)

        return x


class DiT(nnx.Module):
    def __init__(
        self,
        in_channels: int = 4,
        dim: int = 1024,
        patch_size: tuple = (2, 2),
        depth: int = 12,
        attn_heads=16,
        drop=0.0,
        rngs=nnx.Rngs(config.seed),
    ):
        super().__init__()
        self.dim = dim
        self.out_channels = in_channels
        self.patch_embed = PatchEmbed(dim=dim, patch_size=patch_size[0])
        self.num_patches = self.patch_embed.num_patches
        self.label_embedder = LabelEmbedder(1000, dim, drop=drop)
        self.time_embed = TimestepEmbedder(dim)
        self.dit_layers = nnx.List([DiTBlock(dim, attn_heads, drop=drop) for _ in range(depth)])
        self.final_layer = FinalMLP(dim, patch_size, self.out_channels)

    def _unpatchify(self, x, patch_size=(2, 2), height=32, width=32):
        bs, num_patches, patch_dim = x.shape
        H, W = patch_size
        in_channels = patch_dim // (H * W)
        # Calculate the number of patches along each dimension
        num_patches_h, num_patches_w = height // H, width // W

        # Reshape x to (bs, num_patches_h, num_patches_w, H, W, in_channels)
        x = x.reshape((bs, num_patches_h, num_patches_w, H, W, in_channels))

        # transpose x to (bs, num_patches_h, H, num_patches_w, W, in_channels)
        x = x.transpose(0, 1, 3, 2, 4, 5)

        # Reshape x to (bs, height, width, in_channels)
        reconstructed = x.reshape((bs, height, width, in_channels))

        return reconstructed

    def __call__(self, x_t: Array, cond: Array, t: Array):
        pos_embed = get_2d_sincos_pos_embed(embed_dim=self.dim, length=self.num_patches)

        x = self.patch_embed(x_t)
        x = x + pos_embed
        t = self.time_embed(t)
        y = self.label_embedder(cond)

        cond = t + y

        for layer in self.dit_layers:
            x = layer(x, cond)

        x = self.final_layer(x, cond)
        x = self._unpatchify(x)
        return x


@nnx.jit
def train_step(model, optimizer, batch):
    def flow_lossfn(model, batch):  # loss function for flow matching
        img_latents, labels = batch["vae_output"], batch["label"]

        img_latents = img_latents.reshape(-1, 4, 32, 32) * config.vaescale_factor
        img_latents = rearrange(img_latents, "b c h w -> b h w c") # jax uses channels-last format

        img_latents, labels = jax.device_put((img_latents, labels), jax.devices()[0])

        x_1, c = img_latents, labels  # reassign to more concise variables
        bs = x_1.shape[0]

        x_0 = jrand.normal(randkey, x_1.shape)  # noise  # expect: JIT502
        t = jrand.uniform(randkey, (bs,))  # expect: JIT502
        t = nnx.sigmoid(t)

        inshape = [1] * len(x_1.shape[1:])
        t_exp = t.reshape([bs, *(inshape)])
        # print(f'{x_1.shape = } / {c.shape = } / {t.shape = }')

        x_t = (1 - t_exp) * x_0 + t_exp * x_1
        dx_t = x_1 - x_0  # actual vector/velocity difference

        vtheta = model(x_t, c, t)  # model vector prediction

        mean_dim = list(range(1, len(x_1.shape)))  # across all dimensions except the batch dim
        mean_square = (dx_t - vtheta) ** 2  # squared difference/error
        batchwise_mse_loss = jnp.mean(mean_square, axis=mean_dim)  # mean loss
        loss = jnp.mean(batchwise_mse_loss)

        return loss

    loss, grads = nnx.value_and_grad(flow_lossfn)(model, batch)
    optimizer.update(model, grads)

    return loss


if __name__ == "__main__":
    import traceback

    B = 2
    dit_model = DiT(dim=32, depth=1, attn_heads=2)
    optimizer = nnx.Optimizer(dit_model, optax.adamw(learning_rate=config.lr), wrt=nnx.Param)

    data_key = jrand.key(0)
    batch = {
        "vae_output": jrand.normal(data_key, (B, 4 * 32 * 32)),
        "label": jnp.array([3, 7]),
    }

    # record (x_t, t) as the model sees them in each train_step
    seen = []
    _orig_call = DiT.__call__

    def _recording_call(self, x_t, cond, t):
        jax.debug.callback(lambda a, b: seen.append((np.asarray(a), np.asarray(b))), x_t, t)
        return _orig_call(self, x_t, cond, t)

    DiT.__call__ = _recording_call
    losses = [float(train_step(dit_model, optimizer, batch)) for _ in range(3)]
    DiT.__call__ = _orig_call
    print("losses:", losses)

    x_1 = np.asarray(rearrange(batch["vae_output"].reshape(-1, 4, 32, 32) * config.vaescale_factor, "b c h w -> b h w c"))
    noises, ts = [], []
    for x_t, t in seen:
        t_exp = t.reshape(B, 1, 1, 1)
        noises.append((x_t - t_exp * x_1) / (1 - t_exp))  # x_0 recovered from x_t
        ts.append(t)
    print("t per step:", [t.tolist() for t in ts])
    assert len(seen) == 3
    assert all(np.allclose(n, noises[0], atol=1e-3) for n in noises), "noise differs"
    assert all((t == ts[0]).all() for t in ts), "t differs"
    print("every train_step used the same noise x_0 and the same t")

    # the key reuse checker flags the t draw: randkey was already consumed by the noise draw
    jax.config.update("jax_debug_key_reuse", True)
    try:
        train_step(dit_model, optimizer, batch)
        raise SystemExit("expected a KeyReuseError")
    except jax.errors.KeyReuseError as e:
        tb = e.__cause__.__traceback__ if e.__cause__ is not None else e.__traceback__
        lines = [fr.lineno for fr in traceback.extract_tb(tb) if fr.filename == __file__]
        print("KeyReuseError, innermost line in this file:", lines[-1], "-", str(e).splitlines()[0])
        assert "t = jrand.uniform(randkey" in open(__file__).read().splitlines()[lines[-1] - 1]
