# source: https://github.com/huggingface/diffusers/blob/2ea1da89ab42bde69caad909048925ca99873400/src/diffusers/pipelines/stable_diffusion/pipeline_flax_stable_diffusion.py
#   (the pipeline as https://github.com/huggingface/diffusers/pull/2553, "add cfg flag",
#   found it: classifier-free guidance always on, guidance_scale only used in arithmetic)
# observed on jax 0.10.2 CPU: runs clean with jit=True: under jax.pmap, guidance_scale is
#   mapped over devices and traced, and _generate only multiplies by it; num_inference_steps,
#   height and width are static broadcast arguments. Kept from the file: _generate, __call__ (its
#   docstring left out) and _p_generate; `jax.random.KeyArray` (removed) is spelled
#   `jax.Array`. Stand-ins (diffusers and transformers are not installed): the base class,
#   the output class and the pipeline's __init__, an embedding table for the CLIP text
#   encoder, a tokenizer that pads, one-layer flax modules for the UNet and the VAE
#   decoder, and a scheduler with FlaxDDIMScheduler's interface and an Euler step.
# gap: other
import types
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Any, Dict, List, Optional, Union

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.core.frozen_dict import FrozenDict
from flax.jax_utils import replicate
from flax.training.common_utils import shard

# Set to True to use python for loop instead of jax.fori_loop for easier debugging
DEBUG = False


@dataclass
class FlaxStableDiffusionPipelineOutput:
    # stand-in for diffusers' output class
    images: np.ndarray
    nsfw_content_detected: Any


class CLIPTextStandIn:
    # stand-in for FlaxCLIPTextModel: an embedding table
    def __call__(self, input_ids, params):
        return (params["embedding"][input_ids],)


class CLIPTokenizerStandIn:
    # stand-in for CLIPTokenizer: every string tokenizes to padding
    def __call__(self, texts, padding, max_length, return_tensors):
        return types.SimpleNamespace(input_ids=np.zeros((len(texts), max_length), dtype=np.int32))


class UNetStandIn(nn.Module):
    # stand-in for FlaxUNet2DConditionModel
    in_channels: int = 4

    @nn.compact
    def __call__(self, sample, timesteps, encoder_hidden_states):
        cond = nn.Dense(self.in_channels)(encoder_hidden_states.mean(axis=1))
        return types.SimpleNamespace(sample=0.5 * sample + cond[:, :, None, None])


class VAEStandIn(nn.Module):
    # stand-in for FlaxAutoencoderKL: decode upsamples 3 latent channels 8x
    config = types.SimpleNamespace(scaling_factor=0.18215, block_out_channels=(1, 2, 3, 4))

    @nn.compact
    def decode(self, latents):
        scale = self.param("scale", nn.initializers.ones, ())
        image = jnp.repeat(jnp.repeat(latents[:, :3], 8, axis=2), 8, axis=3)
        return types.SimpleNamespace(sample=scale * image)


@flax.struct.dataclass
class SchedulerStateStandIn:
    init_noise_sigma: jnp.ndarray
    timesteps: jnp.ndarray


class SchedulerStandIn:
    # stand-in for a Flax scheduler (the interface of FlaxDDIMScheduler), with a plain Euler step
    def set_timesteps(self, state, num_inference_steps, shape):
        timesteps = (jnp.arange(num_inference_steps) * (1000 // num_inference_steps))[::-1]
        return state.replace(timesteps=timesteps)

    def scale_model_input(self, state, sample, timestep):
        return sample

    def step(self, state, model_output, timestep, sample):
        return types.SimpleNamespace(to_tuple=lambda: (sample - 0.1 * model_output, state))


class FlaxDiffusionPipeline:
    # stand-in for diffusers' FlaxDiffusionPipeline base class
    pass


class FlaxStableDiffusionPipeline(FlaxDiffusionPipeline):
    def __init__(self, vae, text_encoder, tokenizer, unet, scheduler, safety_checker=None,
                 dtype=jnp.float32):
        # stand-in for the pipeline's __init__ (register_modules and its version checks)
        self.dtype = dtype
        self.vae, self.text_encoder, self.tokenizer = vae, text_encoder, tokenizer
        self.unet, self.scheduler, self.safety_checker = unet, scheduler, safety_checker
        self.vae_scale_factor = 2 ** (len(self.vae.config.block_out_channels) - 1)

    def _generate(
        self,
        prompt_ids: jnp.array,
        params: Union[Dict, FrozenDict],
        prng_seed: jax.Array,
        num_inference_steps: int,
        height: int,
        width: int,
        guidance_scale: float,
        latents: Optional[jnp.array] = None,
        neg_prompt_ids: Optional[jnp.array] = None,
    ):
        if height % 8 != 0 or width % 8 != 0:
            raise ValueError(f"`height` and `width` have to be divisible by 8 but are {height} and {width}.")

        # get prompt text embeddings
        prompt_embeds = self.text_encoder(prompt_ids, params=params["text_encoder"])[0]

        # TODO: currently it is assumed `do_classifier_free_guidance = guidance_scale > 1.0`
        # implement this conditional `do_classifier_free_guidance = guidance_scale > 1.0`
        batch_size = prompt_ids.shape[0]

        max_length = prompt_ids.shape[-1]

        if neg_prompt_ids is None:
            uncond_input = self.tokenizer(
                [""] * batch_size, padding="max_length", max_length=max_length, return_tensors="np"
            ).input_ids
        else:
            uncond_input = neg_prompt_ids
        negative_prompt_embeds = self.text_encoder(uncond_input, params=params["text_encoder"])[0]
        context = jnp.concatenate([negative_prompt_embeds, prompt_embeds])

        latents_shape = (
            batch_size,
            self.unet.in_channels,
            height // self.vae_scale_factor,
            width // self.vae_scale_factor,
        )
        if latents is None:
            latents = jax.random.normal(prng_seed, shape=latents_shape, dtype=jnp.float32)
        else:
            if latents.shape != latents_shape:
                raise ValueError(f"Unexpected latents shape, got {latents.shape}, expected {latents_shape}")

        def loop_body(step, args):
            latents, scheduler_state = args
            # For classifier free guidance, we need to do two forward passes.
            # Here we concatenate the unconditional and text embeddings into a single batch
            # to avoid doing two forward passes
            latents_input = jnp.concatenate([latents] * 2)

            t = jnp.array(scheduler_state.timesteps, dtype=jnp.int32)[step]
            timestep = jnp.broadcast_to(t, latents_input.shape[0])

            latents_input = self.scheduler.scale_model_input(scheduler_state, latents_input, t)

            # predict the noise residual
            noise_pred = self.unet.apply(
                {"params": params["unet"]},
                jnp.array(latents_input),
                jnp.array(timestep, dtype=jnp.int32),
                encoder_hidden_states=context,
            ).sample
            # perform guidance
            noise_pred_uncond, noise_prediction_text = jnp.split(noise_pred, 2, axis=0)
            noise_pred = noise_pred_uncond + guidance_scale * (noise_prediction_text - noise_pred_uncond)

            # compute the previous noisy sample x_t -> x_t-1
            latents, scheduler_state = self.scheduler.step(scheduler_state, noise_pred, t, latents).to_tuple()
            return latents, scheduler_state

        scheduler_state = self.scheduler.set_timesteps(
            params["scheduler"], num_inference_steps=num_inference_steps, shape=latents.shape
        )

        # scale the initial noise by the standard deviation required by the scheduler
        latents = latents * params["scheduler"].init_noise_sigma

        if DEBUG:
            # run with python for loop
            for i in range(num_inference_steps):
                latents, scheduler_state = loop_body(i, (latents, scheduler_state))
        else:
            latents, _ = jax.lax.fori_loop(0, num_inference_steps, loop_body, (latents, scheduler_state))

        # scale and decode the image latents with vae
        latents = 1 / self.vae.config.scaling_factor * latents
        image = self.vae.apply({"params": params["vae"]}, latents, method=self.vae.decode).sample

        image = (image / 2 + 0.5).clip(0, 1).transpose(0, 2, 3, 1)
        return image

    def __call__(
        self,
        prompt_ids: jnp.array,
        params: Union[Dict, FrozenDict],
        prng_seed: jax.Array,
        num_inference_steps: int = 50,
        height: Optional[int] = None,
        width: Optional[int] = None,
        guidance_scale: Union[float, jnp.array] = 7.5,
        latents: jnp.array = None,
        neg_prompt_ids: jnp.array = None,
        return_dict: bool = True,
        jit: bool = False,
    ):
        # 0. Default height and width to unet
        height = height or self.unet.config.sample_size * self.vae_scale_factor
        width = width or self.unet.config.sample_size * self.vae_scale_factor

        if isinstance(guidance_scale, float):
            # Convert to a tensor so each device gets a copy. Follow the prompt_ids for
            # shape information, as they may be sharded (when `jit` is `True`), or not.
            guidance_scale = jnp.array([guidance_scale] * prompt_ids.shape[0])
            if len(prompt_ids.shape) > 2:
                # Assume sharded
                guidance_scale = guidance_scale[:, None]

        if jit:
            images = _p_generate(
                self,
                prompt_ids,
                params,
                prng_seed,
                num_inference_steps,
                height,
                width,
                guidance_scale,
                latents,
                neg_prompt_ids,
            )
        else:
            images = self._generate(
                prompt_ids,
                params,
                prng_seed,
                num_inference_steps,
                height,
                width,
                guidance_scale,
                latents,
                neg_prompt_ids,
            )

        if self.safety_checker is not None:
            safety_params = params["safety_checker"]
            images_uint8_casted = (images * 255).round().astype("uint8")
            num_devices, batch_size = images.shape[:2]

            images_uint8_casted = np.asarray(images_uint8_casted).reshape(num_devices * batch_size, height, width, 3)
            images_uint8_casted, has_nsfw_concept = self._run_safety_checker(images_uint8_casted, safety_params, jit)
            images = np.asarray(images)

            # block images
            if any(has_nsfw_concept):
                for i, is_nsfw in enumerate(has_nsfw_concept):
                    if is_nsfw:
                        images[i] = np.asarray(images_uint8_casted[i])

            images = images.reshape(num_devices, batch_size, height, width, 3)
        else:
            images = np.asarray(images)
            has_nsfw_concept = False

        if not return_dict:
            return (images, has_nsfw_concept)

        return FlaxStableDiffusionPipelineOutput(images=images, nsfw_content_detected=has_nsfw_concept)


# Static argnums are pipe, num_inference_steps, height, width. A change would trigger recompilation.
# Non-static args are (sharded) input tensors mapped over their first dimension (hence, `0`).
@partial(
    jax.pmap,
    in_axes=(None, 0, 0, 0, None, None, None, 0, 0, 0),
    static_broadcasted_argnums=(0, 4, 5, 6),
)
def _p_generate(
    pipe,
    prompt_ids,
    params,
    prng_seed,
    num_inference_steps,
    height,
    width,
    guidance_scale,
    latents,
    neg_prompt_ids,
):
    return pipe._generate(
        prompt_ids,
        params,
        prng_seed,
        num_inference_steps,
        height,
        width,
        guidance_scale,
        latents,
        neg_prompt_ids,
    )


if __name__ == "__main__":
    pipeline = FlaxStableDiffusionPipeline(
        vae=VAEStandIn(), text_encoder=CLIPTextStandIn(), tokenizer=CLIPTokenizerStandIn(),
        unet=UNetStandIn(), scheduler=SchedulerStandIn(), safety_checker=None)
    init_key, unet_key, vae_key, seed_key = jax.random.split(jax.random.PRNGKey(0), 4)
    params = {
        "text_encoder": {"embedding": jax.random.normal(init_key, (16, 8))},
        "unet": pipeline.unet.init(unet_key, jnp.ones((2, 4, 2, 2)), jnp.ones((2,), jnp.int32),
                                   encoder_hidden_states=jnp.ones((2, 8, 8)))["params"],
        "vae": pipeline.vae.init(vae_key, jnp.ones((1, 4, 2, 2)), method=pipeline.vae.decode)["params"],
        "scheduler": SchedulerStateStandIn(init_noise_sigma=jnp.array(1.0), timesteps=jnp.zeros(1, jnp.int32)),
    }
    prompt_ids = shard(np.ones((jax.device_count(), 8), dtype=np.int32))  # one tokenized prompt per device
    prng_seed = jax.random.split(seed_key, jax.device_count())
    output = pipeline(prompt_ids, replicate(params), prng_seed, num_inference_steps=3, height=16, width=16, jit=True)
    assert output.images.shape == (1, 1, 16, 16, 3), output.images.shape
