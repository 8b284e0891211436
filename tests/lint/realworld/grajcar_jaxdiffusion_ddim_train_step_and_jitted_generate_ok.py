# source: https://github.com/peter-grajcar/jax-diffusion/blob/d310b4892e4430ecca491d5d7d51c9647cddc9ba/ddim.py
#   (a conditional DDIM on mel spectrograms in flax; gathered here with DiffusionModel from
#   ddim_model.py and the training loop of ddim_train.py at the same commit)
# observed on jax 0.10.2 CPU (flax 0.12.8): runs clean. `train_step` is jitted on a TrainState
#   whose PRNG key is split and stored back on every step and whose `mask=None` default is
#   tested with `is not None`; `generate` is jitted in the training script with the model's
#   `apply_fn` and `num_steps` static and loops in Python over the rows of a traced
#   `jnp.linspace`, which unrolls `num_steps` steps; two validation calls compile it once.
# Added: the __main__ block, a small version of ddim_train.py's loop (a tiny model: stages
#   [[2, 2]], 1 block, 8 channels; random 8x8 "spectrograms" and conditioning in place of the
#   MelDataset and the VAE encoding; 2 epochs of 2 batches; no checkpointing or tqdm), and a
#   compile counter through jax.monitoring; of ddim_model.py's imports only flax.linen and numpy
#   are kept, placed before its classes (the others repeat ddim.py's).
# gap: exemption-vs-JAX
import jax
import optax
import jax.numpy as jnp
from typing import Any, Callable
from tqdm.auto import tqdm
from functools import partial
from flax.training import train_state

class TrainState(train_state.TrainState):
    batch_stats: Any
    key: jax.random.PRNGKey
    ema_variables: dict
    ema_momentum: float


@jax.jit
def diffusion_rates(times: jnp.ndarray):
    starting_angle, final_angle = 0.025, jnp.pi / 2 - 0.025
    signal_rates = jnp.cos((1 - times) * starting_angle + times * final_angle)[..., None, None, None]
    noise_rates = jnp.sin((1 - times) * starting_angle + times * final_angle)[..., None, None, None]
    return signal_rates, noise_rates

@jax.jit
def train_step(state: TrainState, batch: tuple[jnp.ndarray, jnp.array, jnp.ndarray], mask: jnp.ndarray=None):
    images, noises, conditioning = batch

    key, time_key = jax.random.split(state.key, 2)
    state = state.replace(key=key)
    times = jax.random.uniform(time_key, images.shape[:1])

    signal_rates, noise_rates = diffusion_rates(times)
    noisy_images = signal_rates * images + noise_rates * noises

    def loss_fn(params):
        predicted_noises, updates = state.apply_fn(
            {"params": params, "batch_stats": state.batch_stats},
            noisy_images,
            conditioning,
            noise_rates,
            train=True,
            mutable=["batch_stats"],
        )
        loss = jnp.abs(noises - predicted_noises)
        if mask is not None:
            loss = loss * mask
        loss = loss.mean()
        return loss, (predicted_noises, updates)

    # Gradient update
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (loss, (predicted_noises, updates)), grads = grad_fn(state.params)
    state = state.apply_gradients(grads=grads)
    state = state.replace(batch_stats=updates["batch_stats"])

    # Exponential moving average update
    ema_variables = optax.incremental_update(
        {"params": state.params, "batch_stats": state.batch_stats},
        state.ema_variables,
        state.ema_momentum
    )
    state = state.replace(ema_variables=ema_variables)

    return state, loss


# @partial(jax.jit, static_argnums=[0, 4])
def generate(apply_fn: Callable, variables: dict, initial_noise: jnp.ndarray, conditioning: jnp.ndarray, num_steps: int):
    images = initial_noise
    diffusion_process = []

    steps = jnp.linspace(jnp.ones(initial_noise.shape[:1]), jnp.zeros(initial_noise.shape[:1]), num_steps + 1)

    for times, next_times in zip(steps[:-1], steps[1:]):
        diffusion_process.append(images)

        signal_rates, noise_rates = diffusion_rates(times)

        predicted_noises = apply_fn(
            variables,
            images,
            conditioning,
            noise_rates,
            train=False,
        )

        denoised_images = (images - noise_rates * predicted_noises) / signal_rates

        next_signal_rates, next_noise_rates = diffusion_rates(next_times)

        images = next_signal_rates * denoised_images + next_noise_rates * predicted_noises

    return images, diffusion_process




import flax.linen as nn
import numpy as np
class SinusoidalEmbedding(nn.Module):
    dim: int

    @nn.compact
    def __call__(self, inputs):
        i = jnp.arange(self.dim // 2)
        sin_embeddings = jnp.sin(2 * np.pi * inputs / 20 ** (2 * i / self.dim))
        cos_embeddings = jnp.cos(2 * np.pi * inputs / 20 ** (2 * i / self.dim))
        embeddings = jnp.concatenate([sin_embeddings, cos_embeddings], axis=-1)
        return embeddings


class Attention(nn.Module):
    num_heads: int

    @nn.compact
    def __call__(self, inputs, conditioning, train=True):
        hidden = nn.BatchNorm(use_running_average=not train)(inputs)

        original_shape = hidden.shape
        hidden = jnp.reshape(hidden, (original_shape[0], original_shape[1] * original_shape[2], original_shape[3]))

        hidden = nn.MultiHeadDotProductAttention(num_heads=self.num_heads, use_bias=False)(hidden, hidden, deterministic=not train)

        hidden = jnp.reshape(hidden, original_shape)

        hidden += inputs
        return hidden


class ResidualBlock(nn.Module):
    width: int

    @nn.compact
    def __call__(self, inputs, noise_embeddings, train=True):
        residual = nn.Conv(self.width, (1, 1))(inputs) if self.width != inputs.shape[-1] else inputs

        hidden = nn.BatchNorm(use_running_average=not train)(inputs)
        hidden = nn.swish(hidden)
        hidden = nn.Conv(self.width, (3, 3), padding="SAME", use_bias=False)(hidden)

        noise_embeddings = nn.Dense(self.width)(noise_embeddings)
        noise_embeddings = nn.swish(noise_embeddings)
        hidden += noise_embeddings

        hidden = nn.BatchNorm(use_running_average=not train)(hidden)
        hidden = nn.swish(hidden)
        hidden = nn.Conv(self.width, (3, 3), padding="SAME", use_bias=False, kernel_init=nn.initializers.zeros)(hidden)

        hidden += residual
        return hidden

class Downsample(nn.Module):
    factor: tuple[int, int]
    use_conv: bool = False

    @nn.compact
    def __call__(self, inputs):
        if self.use_conv:
            hidden = nn.Conv(inputs.shape[-1], (3, 3), strides=self.factor, padding="SAME")(inputs)
        else:
            hidden = nn.avg_pool(inputs, self.factor, strides=self.factor, padding="SAME")
        return hidden

class Upsample(nn.Module):
    factor: tuple[int, int]
    use_conv: bool = False

    @nn.compact
    def __call__(self, inputs):
        hidden = jax.image.resize(
            inputs,
            [inputs.shape[0], inputs.shape[1] * self.factor[0], inputs.shape[2] * self.factor[1], inputs.shape[3]],
             method="nearest"
        )
        if self.use_conv:
            hidden = nn.Conv(hidden.shape[-1], (3, 3), padding="SAME")(hidden)
        return hidden



class DiffusionModel(nn.Module):
    stages: int
    stage_blocks: int
    channels: int
    out_channels: int = 3
    attention_stages: int = 0
    attention_heads: int = 8
    scale_with_conv: bool = False

    @nn.compact
    def __call__(self, inputs, conditioning, noise_rates, train=True):
        noise_embeddings = SinusoidalEmbedding(self.channels)(noise_rates)

        inputs = jnp.concatenate([inputs, conditioning], axis=-1)
        hidden = nn.Conv(self.channels, (3, 3), padding="SAME")(inputs)

        outputs = []
        for i, factor in enumerate(self.stages):
            for _ in range(self.stage_blocks):
                hidden = ResidualBlock(self.channels << i)(hidden, noise_embeddings, train)
                outputs.append(hidden)

            if i >= len(self.stages) - self.attention_stages:
                hidden = Attention(num_heads=self.attention_heads)(hidden, conditioning, train)

            hidden = Downsample(factor, use_conv=self.scale_with_conv)(hidden)

        for _ in range(self.stage_blocks):
            hidden = ResidualBlock(self.channels << len(self.stages))(hidden, noise_embeddings, train)

        if self.attention_stages > 0:
            hidden = Attention(num_heads=self.attention_heads)(hidden, conditioning, train)

        for i, factor in reversed(list(enumerate(self.stages))):
            hidden = Upsample(factor, use_conv=self.scale_with_conv)(hidden)

            if i >= len(self.stages) - self.attention_stages:
                hidden = Attention(num_heads=self.attention_heads)(hidden, conditioning, train)

            for _ in range(self.stage_blocks):
                hidden = jnp.concatenate([hidden, outputs.pop()], axis=-1)
                hidden = ResidualBlock(self.channels << i)(hidden, noise_embeddings, train)

        assert len(outputs) == 0

        outputs = nn.BatchNorm(use_running_average=not train)(hidden)
        outputs = nn.swish(outputs)
        outputs = nn.Conv(self.out_channels, (3, 3), padding="SAME", kernel_init=nn.initializers.zeros)(outputs)

        return outputs



if __name__ == "__main__":
    import numpy as np

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None
    )

    key = jax.random.PRNGKey(42)
    model = DiffusionModel(stages=[[2, 2]], stage_blocks=1, channels=8, out_channels=1)
    key, init_key = jax.random.split(key)
    variables = model.init(init_key, jnp.ones([1, 8, 8, 1]), jnp.ones([1, 8, 8, 1]), jnp.ones([1, 1, 1, 1]), train=False)
    optimiser = optax.adamw(1e-3)
    key, train_key = jax.random.split(key)
    state = TrainState.create(
        apply_fn=model.apply,
        params=variables["params"],
        tx=optimiser,
        batch_stats=variables["batch_stats"],
        key=train_key,
        ema_variables=variables.copy(),
        ema_momentum=0.999,
    )

    data = np.random.default_rng(0).normal(size=(2, 4, 8, 8, 1)).astype(np.float32)
    key, noise_key = jax.random.split(key)
    dev_noise = jax.random.normal(noise_key, (4, 8, 8, 1))
    dev = (dev_noise, jnp.asarray(data[0]), jnp.asarray(data[0]) * 0.5)

    generate = jax.jit(generate, static_argnums=[0, 4])

    keys_seen = []
    for epoch in range(2):
        for images in data:
            key, augment_key, noise_key = jax.random.split(key, 3)
            noises = jax.random.normal(noise_key, images.shape)
            augmented = jnp.asarray(images) * 0.5
            batch = (jnp.asarray(images), noises, augmented)
            keys_seen.append(np.asarray(state.key))
            state, loss = train_step(state, batch)
            assert np.isfinite(float(loss))
        n_before = len(compiles)
        noise, original, augmented = dev
        generated, _ = generate(state.apply_fn, state.ema_variables, noise, augmented, 3)
        assert generated.shape == original.shape
        if epoch == 1:
            assert len(compiles) == n_before, "generate compiled again"
    assert len({k.tobytes() for k in keys_seen}) == len(keys_seen)
