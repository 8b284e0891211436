# source: https://github.com/novaia/ntg/blob/cb770a5dc7e1be81e2f143ec1a75f937c3b229c4/sampling/diffusion.py
#   (ntg, a terrain-heightmap diffusion model; `implicit` as it is, with `diffusion_schedule`
#   and the preview loop of models/terra.py at the same commit, which calls it twice every
#   preview epoch through `sample_fn = partial(sample_implicit, ...)`)
# observed on jax 0.10.2 CPU: every call of `implicit` defines and jits a new closure
#   `inference_fn` (over the params it is given), so every preview sample compiles the
#   denoiser again: after a first warm-up call, each preview epoch's two calls (fixed seed 0
#   and a new seed) give two backend compilations, one per call, although the shapes, the
#   params and the model never change.
# gap: per-call-recompile
# added: imports; the Terra U-Net is a stand-in flax module (one Conv over the image and the
#   noise rate); the training loop around the preview is left out (an epoch of the loop is a
#   preview step here, with the model's params in place of state.ema_params, and
#   save_samples is left out); the __main__ block.
from functools import partial
from typing import Callable, Any

import jax
from jax import lax
from jax import numpy as jnp
from flax import linen as nn


# models/terra.py
def diffusion_schedule(diffusion_times, min_signal_rate, max_signal_rate):
    start_angle = jnp.arccos(max_signal_rate)
    end_angle = jnp.arccos(min_signal_rate)
    diffusion_angles = start_angle + diffusion_times * (end_angle - start_angle)

    signal_rates = jnp.cos(diffusion_angles)
    noise_rates = jnp.sin(diffusion_angles)
    return noise_rates, signal_rates


class TerraStandIn(nn.Module):  # stand-in for models/terra.py's Terra U-Net
    @nn.compact
    def __call__(self, x, diffusion_time):
        t = jnp.broadcast_to(diffusion_time, x.shape)
        return nn.Conv(1, (3, 3))(jnp.concatenate([x, t], axis=-1))


# sampling/diffusion.py
# TODO: figure out what this sampling method is called, it is implicit reverse diffusion
# since it skips steps but I'm pretty sure there is a more specific name.
def implicit(
    apply_fn:Callable,
    params:Any,
    num_images:int, 
    diffusion_steps:int, 
    diffusion_schedule:Callable,
    image_width:int, 
    image_height:int, 
    channels:int,
    min_signal_rate:float,
    max_signal_rate:float,
    seed:int, 
):
    @jax.jit  # expect: JIT301
    def inference_fn(noisy_images, diffusion_times):
        return lax.stop_gradient(apply_fn({'params': params}, noisy_images, diffusion_times))
    
    initial_noise = jax.random.normal(
        jax.random.PRNGKey(seed), 
        shape=(num_images, image_height, image_width, channels)
    )
    step_size = 1.0 / diffusion_steps
    
    next_noisy_images = initial_noise
    for step in range(diffusion_steps):
        noisy_images = next_noisy_images
        
        diffusion_times = jnp.ones((num_images, 1, 1, 1)) - step * step_size
        noise_rates, signal_rates = diffusion_schedule(
            diffusion_times, min_signal_rate, max_signal_rate
        )
        pred_noises = inference_fn(noisy_images, noise_rates**2)
        pred_images = (noisy_images - noise_rates * pred_noises) / signal_rates
        
        next_diffusion_times = diffusion_times - step_size
        next_noise_rates, next_signal_rates = diffusion_schedule(
            next_diffusion_times, min_signal_rate, max_signal_rate
        )
        next_noisy_images = (next_signal_rates * pred_images + next_noise_rates * pred_noises)
    return pred_images


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )
    config = {'image_size': 8, 'output_channels': 1,
              'min_signal_rate': 0.02, 'max_signal_rate': 0.95}
    model = TerraStandIn()
    x = jnp.ones((2, config['image_size'], config['image_size'], config['output_channels']))
    params = model.init(jax.random.PRNGKey(0), x, jnp.ones((2, 1, 1, 1)))['params']

    min_signal_rate = config['min_signal_rate']
    max_signal_rate = config['max_signal_rate']
    sample_implicit = implicit  # terra.py: from sampling.diffusion import implicit as sample_implicit
    sample_fn = partial(
        sample_implicit,
        num_images=16,
        diffusion_steps=20,
        diffusion_schedule=diffusion_schedule,
        image_width=config['image_size'],
        image_height=config['image_size'],
        channels=config['output_channels'],
        min_signal_rate=min_signal_rate,
        max_signal_rate=max_signal_rate,
    )
    fixed_seed_samples = sample_fn(apply_fn=model.apply, params=params, seed=0)  # warm-up
    counts = []
    for step in range(1, 4):  # three preview epochs
        n = len(compiles)
        fixed_seed_samples = sample_fn(apply_fn=model.apply, params=params, seed=0)
        dynamic_seed_samples = sample_fn(apply_fn=model.apply, params=params, seed=step)
        counts.append(len(compiles) - n)
    # observed: line 58 jits a new inference_fn on every call of implicit: each later
    #   call compiles it again although nothing changed
    assert counts == [2, 2, 2], counts
    assert fixed_seed_samples.shape == (16, 8, 8, 1)
