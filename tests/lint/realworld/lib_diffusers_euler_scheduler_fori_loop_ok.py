# source: https://github.com/huggingface/diffusers/blob/11bf2cf1d149c47a210912f0b446e701b81e923d/src/diffusers/schedulers/scheduling_euler_discrete_flax.py
#   (EulerDiscreteSchedulerState, FlaxEulerDiscreteSchedulerOutput and
#   FlaxEulerDiscreteScheduler verbatim but for docstrings shortened; the module's
#   `from typing import Optional, tuple` is written `from typing import Optional`, as
#   `typing` has no `tuple` to import)
# observed on jax 0.10.2 CPU: the Stable Diffusion pipeline's loop body runs the Euler
#   scheduler inside jax.lax.fori_loop under jax.jit and gives the same latents as the
#   pipeline's DEBUG path, a Python loop run eagerly: the step index comes from
#   `jnp.where(state.timesteps == timestep, size=1)`, the state's Python fields
#   (`num_inference_steps is None`) and the config strings are tested in Python, and
#   nothing leaves the traced values.
#   Stand-ins (diffusers is not installed): ConfigMixin/register_to_config keep the
#   constructor's arguments in `self.config`; CommonSchedulerState.create and
#   broadcast_to_shape_from_left are copied from schedulers/scheduling_utils_flax.py (the
#   linear and scaled_linear schedules); FlaxSchedulerOutput has BaseOutput's to_tuple;
#   FlaxKarrasDiffusionSchedulers lists two names. Added: the __main__ block, whose
#   loop_body is the pipeline's (pipelines/stable_diffusion/pipeline_flax_stable_diffusion.py,
#   https://github.com/huggingface/diffusers/blob/03e717a407a62ceedd5c81cdc903b12dd3c5a48f/src/diffusers/pipelines/stable_diffusion/pipeline_flax_stable_diffusion.py)
#   with a stand-in UNet that predicts 0.1 * latents and no text encoder.
# gap: exemption-vs-JAX
import dataclasses
import enum
import functools
import logging as _logging
import types
from dataclasses import dataclass
from typing import Optional

import flax
import jax
import jax.numpy as jnp
import numpy as np


# ---- stand-ins for diffusers' configuration_utils, utils.logging and scheduling_utils_flax ----
def register_to_config(init):
    @functools.wraps(init)
    def wrapper(self, **kwargs):
        defaults = {k: p.default for k, p in __import__("inspect").signature(init).parameters.items() if k != "self"}
        self.config = types.SimpleNamespace(**{**defaults, **kwargs})
        init(self, **kwargs)
    return wrapper


class ConfigMixin:
    pass


class FlaxSchedulerMixin:
    pass


logging = types.SimpleNamespace(get_logger=_logging.getLogger)
FlaxKarrasDiffusionSchedulers = enum.Enum("FlaxKarrasDiffusionSchedulers", ["FlaxDDIMScheduler", "FlaxDDPMScheduler"])


@dataclass
class FlaxSchedulerOutput:
    prev_sample: jnp.ndarray

    def to_tuple(self):
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))


def broadcast_to_shape_from_left(x, shape):
    assert len(shape) >= x.ndim
    return jnp.broadcast_to(x.reshape(x.shape + (1,) * (len(shape) - x.ndim)), shape)


@flax.struct.dataclass
class CommonSchedulerState:
    alphas: jnp.ndarray
    betas: jnp.ndarray
    alphas_cumprod: jnp.ndarray

    @classmethod
    def create(cls, scheduler):
        config = scheduler.config

        if config.trained_betas is not None:
            betas = jnp.asarray(config.trained_betas, dtype=scheduler.dtype)
        elif config.beta_schedule == "linear":
            betas = jnp.linspace(config.beta_start, config.beta_end, config.num_train_timesteps, dtype=scheduler.dtype)
        elif config.beta_schedule == "scaled_linear":
            # this schedule is very specific to the latent diffusion model.
            betas = (
                jnp.linspace(
                    config.beta_start**0.5, config.beta_end**0.5, config.num_train_timesteps, dtype=scheduler.dtype
                )
                ** 2
            )
        else:
            raise NotImplementedError(
                f"beta_schedule {config.beta_schedule} is not implemented for scheduler {scheduler.__class__.__name__}"
            )

        alphas = 1.0 - betas

        alphas_cumprod = jnp.cumprod(alphas, axis=0)

        return cls(
            alphas=alphas,
            betas=betas,
            alphas_cumprod=alphas_cumprod,
        )
# ---- end of stand-ins ----


@flax.struct.dataclass
class EulerDiscreteSchedulerState:
    common: CommonSchedulerState

    # setable values
    init_noise_sigma: jnp.ndarray
    timesteps: jnp.ndarray
    sigmas: jnp.ndarray
    num_inference_steps: Optional[int] = None

    @classmethod
    def create(
        cls, common: CommonSchedulerState, init_noise_sigma: jnp.ndarray, timesteps: jnp.ndarray, sigmas: jnp.ndarray
    ):
        return cls(common=common, init_noise_sigma=init_noise_sigma, timesteps=timesteps, sigmas=sigmas)


@dataclass
class FlaxEulerDiscreteSchedulerOutput(FlaxSchedulerOutput):
    state: EulerDiscreteSchedulerState


class FlaxEulerDiscreteScheduler(FlaxSchedulerMixin, ConfigMixin):
    """
    Euler scheduler (Algorithm 2) from Karras et al. (2022) https://huggingface.co/papers/2206.00364. . Based on the
    original k-diffusion implementation by Katherine Crowson:
    https://github.com/crowsonkb/k-diffusion/blob/481677d114f6ea445aa009cf5bd7a9cdee909e47/k_diffusion/sampling.py#L51
    """

    _compatibles = [e.name for e in FlaxKarrasDiffusionSchedulers]

    dtype: jnp.dtype

    @property
    def has_state(self):
        return True

    @register_to_config
    def __init__(
        self,
        num_train_timesteps: int = 1000,
        beta_start: float = 0.0001,
        beta_end: float = 0.02,
        beta_schedule: str = "linear",
        trained_betas: Optional[jnp.ndarray] = None,
        prediction_type: str = "epsilon",
        timestep_spacing: str = "linspace",
        dtype: jnp.dtype = jnp.float32,
    ):
        self.dtype = dtype

    def create_state(self, common: Optional[CommonSchedulerState] = None) -> EulerDiscreteSchedulerState:
        if common is None:
            common = CommonSchedulerState.create(self)

        timesteps = jnp.arange(0, self.config.num_train_timesteps).round()[::-1]
        sigmas = ((1 - common.alphas_cumprod) / common.alphas_cumprod) ** 0.5
        sigmas = jnp.interp(timesteps, jnp.arange(0, len(sigmas)), sigmas)
        sigmas = jnp.concatenate([sigmas, jnp.array([0.0], dtype=self.dtype)])

        # standard deviation of the initial noise distribution
        if self.config.timestep_spacing in ["linspace", "trailing"]:
            init_noise_sigma = sigmas.max()
        else:
            init_noise_sigma = (sigmas.max() ** 2 + 1) ** 0.5

        return EulerDiscreteSchedulerState.create(
            common=common,
            init_noise_sigma=init_noise_sigma,
            timesteps=timesteps,
            sigmas=sigmas,
        )

    def scale_model_input(self, state: EulerDiscreteSchedulerState, sample: jnp.ndarray, timestep: int) -> jnp.ndarray:
        """
        Scales the denoising model input by `(sigma**2 + 1) ** 0.5` to match the Euler algorithm.
        """
        (step_index,) = jnp.where(state.timesteps == timestep, size=1)
        step_index = step_index[0]

        sigma = state.sigmas[step_index]
        sample = sample / ((sigma**2 + 1) ** 0.5)
        return sample

    def set_timesteps(
        self, state: EulerDiscreteSchedulerState, num_inference_steps: int, shape: tuple = ()
    ) -> EulerDiscreteSchedulerState:
        """
        Sets the timesteps used for the diffusion chain. Supporting function to be run before inference.
        """

        if self.config.timestep_spacing == "linspace":
            timesteps = jnp.linspace(self.config.num_train_timesteps - 1, 0, num_inference_steps, dtype=self.dtype)
        elif self.config.timestep_spacing == "leading":
            step_ratio = self.config.num_train_timesteps // num_inference_steps
            timesteps = (jnp.arange(0, num_inference_steps) * step_ratio).round()[::-1].copy().astype(float)
            timesteps += 1
        else:
            raise ValueError(
                f"timestep_spacing must be one of ['linspace', 'leading'], got {self.config.timestep_spacing}"
            )

        sigmas = ((1 - state.common.alphas_cumprod) / state.common.alphas_cumprod) ** 0.5
        sigmas = jnp.interp(timesteps, jnp.arange(0, len(sigmas)), sigmas)
        sigmas = jnp.concatenate([sigmas, jnp.array([0.0], dtype=self.dtype)])

        # standard deviation of the initial noise distribution
        if self.config.timestep_spacing in ["linspace", "trailing"]:
            init_noise_sigma = sigmas.max()
        else:
            init_noise_sigma = (sigmas.max() ** 2 + 1) ** 0.5

        return state.replace(
            timesteps=timesteps,
            sigmas=sigmas,
            num_inference_steps=num_inference_steps,
            init_noise_sigma=init_noise_sigma,
        )

    def step(
        self,
        state: EulerDiscreteSchedulerState,
        model_output: jnp.ndarray,
        timestep: int,
        sample: jnp.ndarray,
        return_dict: bool = True,
    ) -> FlaxEulerDiscreteSchedulerOutput | tuple:
        """
        Predict the sample at the previous timestep by reversing the SDE. Core function to propagate the diffusion
        process from the learned model outputs (most often the predicted noise).
        """
        if state.num_inference_steps is None:
            raise ValueError(
                "Number of inference steps is 'None', you need to run 'set_timesteps' after creating the scheduler"
            )

        (step_index,) = jnp.where(state.timesteps == timestep, size=1)
        step_index = step_index[0]

        sigma = state.sigmas[step_index]

        # 1. compute predicted original sample (x_0) from sigma-scaled predicted noise
        if self.config.prediction_type == "epsilon":
            pred_original_sample = sample - sigma * model_output
        elif self.config.prediction_type == "v_prediction":
            # * c_out + input * c_skip
            pred_original_sample = model_output * (-sigma / (sigma**2 + 1) ** 0.5) + (sample / (sigma**2 + 1))
        else:
            raise ValueError(
                f"prediction_type given as {self.config.prediction_type} must be one of `epsilon`, or `v_prediction`"
            )

        # 2. Convert to an ODE derivative
        derivative = (sample - pred_original_sample) / sigma

        # dt = sigma_down - sigma
        dt = state.sigmas[step_index + 1] - sigma

        prev_sample = sample + derivative * dt

        if not return_dict:
            return (prev_sample, state)

        return FlaxEulerDiscreteSchedulerOutput(prev_sample=prev_sample, state=state)

    def add_noise(
        self,
        state: EulerDiscreteSchedulerState,
        original_samples: jnp.ndarray,
        noise: jnp.ndarray,
        timesteps: jnp.ndarray,
    ) -> jnp.ndarray:
        sigma = state.sigmas[timesteps].flatten()
        sigma = broadcast_to_shape_from_left(sigma, noise.shape)

        noisy_samples = original_samples + noise * sigma

        return noisy_samples

    def __len__(self):
        return self.config.num_train_timesteps


if __name__ == "__main__":
    guidance_scale = jnp.array([7.5], dtype=jnp.float32)
    num_inference_steps = 5

    def make_generate(scheduler, debug):
        def generate(params, prng_seed):
            latents = jax.random.normal(prng_seed, shape=(1, 4, 8, 8), dtype=jnp.float32)

            def loop_body(step, args):
                latents, scheduler_state = args
                latents_input = jnp.concatenate([latents] * 2)

                t = jnp.array(scheduler_state.timesteps, dtype=jnp.int32)[step]
                timestep = jnp.broadcast_to(t, latents_input.shape[0])

                latents_input = scheduler.scale_model_input(scheduler_state, latents_input, t)

                # predict the noise residual (stand-in UNet)
                noise_pred = 0.1 * latents_input
                # perform guidance
                noise_pred_uncond, noise_prediction_text = jnp.split(noise_pred, 2, axis=0)
                noise_pred = noise_pred_uncond + guidance_scale * (noise_prediction_text - noise_pred_uncond)

                # compute the previous noisy sample x_t -> x_t-1
                latents, scheduler_state = scheduler.step(scheduler_state, noise_pred, t, latents).to_tuple()
                return latents, scheduler_state

            scheduler_state = scheduler.set_timesteps(
                params["scheduler"], num_inference_steps=num_inference_steps, shape=latents.shape
            )

            # scale the initial noise by the standard deviation required by the scheduler
            latents = latents * params["scheduler"].init_noise_sigma

            if debug:
                # run with python for loop
                for i in range(num_inference_steps):
                    latents, scheduler_state = loop_body(i, (latents, scheduler_state))
            else:
                latents, _ = jax.lax.fori_loop(0, num_inference_steps, loop_body, (latents, scheduler_state))
            return latents
        return generate

    scheduler = FlaxEulerDiscreteScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")
    params = {"scheduler": scheduler.create_state()}
    jitted = jax.jit(make_generate(scheduler, debug=False))(params, jax.random.key(0))
    eager = make_generate(scheduler, debug=True)(params, jax.random.key(0))
    assert jitted.shape == (1, 4, 8, 8) and np.all(np.isfinite(jitted))
    assert np.allclose(jitted, eager, rtol=1e-4, atol=1e-4)
