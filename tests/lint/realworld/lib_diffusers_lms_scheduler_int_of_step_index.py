# source: https://github.com/huggingface/diffusers/blob/0d264255f87a3c051abb8fa9cb6aa992cc59cc62/src/diffusers/schedulers/scheduling_lms_discrete_flax.py
#   (LMSDiscreteSchedulerState, FlaxLMSSchedulerOutput and FlaxLMSDiscreteScheduler
#   verbatim; https://github.com/huggingface/diffusers/issues/2180 "Make
#   FlaxLMSDiscreteScheduler jittable": "I was under the wrong assumption that
#   FlaxLMSDiscreteScheduler had been made jittable ... but it never was", after #2155
#   reported its ConcretizationTypeError in the Flax Stable Diffusion pipeline)
# observed on jax 0.10.2 CPU: the pipeline's _generate runs scheduler.step in the body of
#   jax.lax.fori_loop (and pmaps _generate); step turns the traced step index into a Python
#   int with `int(step_index)` and raises ConcretizationTypeError. Past it, the LMS
#   coefficients call scipy.integrate.quad with traced sigmas as the bounds (tolerated: the
#   same host-side computation, never reached).
#   Stand-ins (diffusers is not installed): ConfigMixin/register_to_config keep the
#   constructor's arguments in `self.config`; CommonSchedulerState.create and
#   broadcast_to_shape_from_left are copied from schedulers/scheduling_utils_flax.py (the
#   linear and scaled_linear schedules); FlaxSchedulerOutput has BaseOutput's to_tuple;
#   FlaxKarrasDiffusionSchedulers lists two names. Added: the __main__ block, whose
#   loop_body is the pipeline's (pipelines/stable_diffusion/pipeline_flax_stable_diffusion.py,
#   https://github.com/huggingface/diffusers/blob/03e717a407a62ceedd5c81cdc903b12dd3c5a48f/src/diffusers/pipelines/stable_diffusion/pipeline_flax_stable_diffusion.py)
#   with a stand-in UNet that predicts 0.1 * latents and no text encoder.
# gap: other
import dataclasses
import enum
import functools
import logging as _logging
import types
from dataclasses import dataclass

import flax
import jax
import jax.numpy as jnp
from scipy import integrate


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


logger = logging.get_logger(__name__)


@flax.struct.dataclass
class LMSDiscreteSchedulerState:
    common: CommonSchedulerState

    # settable values
    init_noise_sigma: jnp.ndarray
    timesteps: jnp.ndarray
    sigmas: jnp.ndarray
    num_inference_steps: int = None

    # running values
    derivatives: jnp.ndarray | None = None

    @classmethod
    def create(
        cls,
        common: CommonSchedulerState,
        init_noise_sigma: jnp.ndarray,
        timesteps: jnp.ndarray,
        sigmas: jnp.ndarray,
    ):
        return cls(
            common=common,
            init_noise_sigma=init_noise_sigma,
            timesteps=timesteps,
            sigmas=sigmas,
        )


@dataclass
class FlaxLMSSchedulerOutput(FlaxSchedulerOutput):
    state: LMSDiscreteSchedulerState


class FlaxLMSDiscreteScheduler(FlaxSchedulerMixin, ConfigMixin):
    """
    Linear Multistep Scheduler for discrete beta schedules. Based on the original k-diffusion implementation by
    Katherine Crowson:
    https://github.com/crowsonkb/k-diffusion/blob/481677d114f6ea445aa009cf5bd7a9cdee909e47/k_diffusion/sampling.py#L181
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
        trained_betas: jnp.ndarray | None = None,
        prediction_type: str = "epsilon",
        dtype: jnp.dtype = jnp.float32,
    ):
        logger.warning(
            "Flax classes are deprecated and will be removed in Diffusers v1.0.0. We "
            "recommend migrating to PyTorch classes or pinning your version of Diffusers."
        )
        if prediction_type not in ("epsilon", "sample", "v_prediction"):
            raise ValueError(
                f"`prediction_type` must be one of `epsilon`, `sample`, `v_prediction`, got {prediction_type!r}"
            )
        self.dtype = dtype

    def create_state(self, common: CommonSchedulerState | None = None) -> LMSDiscreteSchedulerState:
        if common is None:
            common = CommonSchedulerState.create(self)

        timesteps = jnp.arange(0, self.config.num_train_timesteps).round()[::-1]
        sigmas = ((1 - common.alphas_cumprod) / common.alphas_cumprod) ** 0.5

        # standard deviation of the initial noise distribution
        init_noise_sigma = sigmas.max()

        return LMSDiscreteSchedulerState.create(
            common=common,
            init_noise_sigma=init_noise_sigma,
            timesteps=timesteps,
            sigmas=sigmas,
        )

    def scale_model_input(self, state: LMSDiscreteSchedulerState, sample: jnp.ndarray, timestep: int) -> jnp.ndarray:
        """
        Scales the denoising model input by `(sigma**2 + 1) ** 0.5` to match the K-LMS algorithm.
        """
        (step_index,) = jnp.where(state.timesteps == timestep, size=1)
        step_index = step_index[0]

        sigma = state.sigmas[step_index]
        sample = sample / ((sigma**2 + 1) ** 0.5)
        return sample

    def get_lms_coefficient(
        self, state: LMSDiscreteSchedulerState, order: int, t: int, current_order: int
    ) -> float:
        """
        Compute a linear multistep coefficient.

        Args:
            order (`int`): Multistep order (number of derivative history terms used).
            t (`int`): Current step index along the inference sigma schedule (not the training timestep id).
            current_order (`int`): Index of the Lagrange basis term; must satisfy `0 <= current_order < order`.
        """

        def lms_derivative(tau):
            prod = 1.0
            for k in range(order):
                if current_order == k:
                    continue
                prod *= (tau - state.sigmas[t - k]) / (state.sigmas[t - current_order] - state.sigmas[t - k])
            return prod

        integrated_coeff = integrate.quad(lms_derivative, state.sigmas[t], state.sigmas[t + 1], epsrel=1e-4)[0]  # tolerate: JIT402

        return integrated_coeff

    def set_timesteps(
        self,
        state: LMSDiscreteSchedulerState,
        num_inference_steps: int,
        shape: tuple = (),
    ) -> LMSDiscreteSchedulerState:
        """
        Sets the timesteps used for the diffusion chain. Supporting function to be run before inference.
        """

        timesteps = jnp.linspace(
            self.config.num_train_timesteps - 1,
            0,
            num_inference_steps,
            dtype=self.dtype,
        )

        low_idx = jnp.floor(timesteps).astype(jnp.int32)
        high_idx = jnp.ceil(timesteps).astype(jnp.int32)

        frac = jnp.mod(timesteps, 1.0)

        sigmas = ((1 - state.common.alphas_cumprod) / state.common.alphas_cumprod) ** 0.5
        sigmas = (1 - frac) * sigmas[low_idx] + frac * sigmas[high_idx]
        sigmas = jnp.concatenate([sigmas, jnp.array([0.0], dtype=self.dtype)])

        timesteps = timesteps.astype(jnp.int32)

        # initial running values
        derivatives = jnp.zeros((0,) + shape, dtype=self.dtype)

        return state.replace(
            timesteps=timesteps,
            sigmas=sigmas,
            num_inference_steps=num_inference_steps,
            derivatives=derivatives,
        )

    def step(
        self,
        state: LMSDiscreteSchedulerState,
        model_output: jnp.ndarray,
        timestep: int,
        sample: jnp.ndarray,
        order: int = 4,
        return_dict: bool = True,
    ) -> FlaxLMSSchedulerOutput | tuple:
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
        elif self.config.prediction_type == "sample":
            pred_original_sample = model_output
        else:
            raise ValueError(
                f"prediction_type given as {self.config.prediction_type} must be one of `epsilon`, `sample`, or `v_prediction`"
            )

        # 2. Convert to an ODE derivative
        derivative = (sample - pred_original_sample) / sigma
        state = state.replace(derivatives=jnp.append(state.derivatives, derivative))
        if len(state.derivatives) > order:
            state = state.replace(derivatives=jnp.delete(state.derivatives, 0))

        # 3. Compute linear multistep coefficients
        idx = int(step_index)  # expect: JIT401
        order = min(idx + 1, order)
        lms_coeffs = [self.get_lms_coefficient(state, order, idx, curr_order) for curr_order in range(order)]

        # 4. Compute previous sample based on the derivatives path
        prev_sample = sample + sum(
            coeff * derivative for coeff, derivative in zip(lms_coeffs, reversed(state.derivatives))
        )

        if not return_dict:
            return (prev_sample, state)

        return FlaxLMSSchedulerOutput(prev_sample=prev_sample, state=state)

    def add_noise(
        self,
        state: LMSDiscreteSchedulerState,
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
    scheduler = FlaxLMSDiscreteScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")
    params = {"scheduler": scheduler.create_state()}
    guidance_scale = jnp.array([7.5], dtype=jnp.float32)
    num_inference_steps = 5

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
        latents, _ = jax.lax.fori_loop(0, num_inference_steps, loop_body, (latents, scheduler_state))
        return latents

    jax.jit(generate)(params, jax.random.key(0))
