# source: https://github.com/Willis1118/JAX_learning/blob/f5baff2b5e1bd7fc8d5bd5862ba4a1ed3e33d8bc/DDPM/diffusion.py
#   (a DDPM on CIFAR-10 for a TPU v4-8; DDPM/train.py at the same commit calls
#   `Diffuser().p_sample_loop(key=sample_key, state=state, shape=(4,4,32,32,3))` with the
#   replicated TrainState; later commits drop the `if t_index == 0` and the static argument
#   and multiply the noise by `self.indicator(t_index)` instead)
# observed on jax 0.10.2 CPU: p_sample_loop's fori_loop body builds `index` from the loop's
#   traced counter and passes it to pp_sample, whose position 4 is in
#   static_broadcasted_argnums: pmap must hash it and raises "Non-hashable static arguments
#   are not supported" (a tracer) at the pp_sample call.
# gap: static-hashability
# added: imports for the stand-ins, XLA_FLAGS giving the CPU 4 devices (the v4-8 had 4),
#   a one-layer stand-in for the repository's UNet (model.py), and the __main__ block that
#   builds and replicates the TrainState as train.py does and makes its sampling call.
#   Left out: q_sample, p_losses, all_gather and sample, which the sampling call does not use.
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
from jax import lax, random, numpy as jnp
from flax import jax_utils
from flax import linen as nn
from flax.training import train_state
import optax

from functools import partial

import numpy as np
import functools


class UNet(nn.Module):  # stand-in for model.UNet: predicts the noise from (x, time)
    dim: int = 8

    @nn.compact
    def __call__(self, x, time):
        h = nn.Conv(self.dim, (3, 3))(x) + time[:, None, None, None] / 1000.0
        return nn.Conv(x.shape[-1], (3, 3))(nn.relu(h))


class VarScheduler:
    def __init__(self, timesteps=1000):
        self.time = timesteps
    
    def cos_beta(self, s=0.008):
        steps = self.time + 1
        x = jnp.linspace(0, self.time, steps)
        alphas_cumprod = jnp.cos( (( x / self.time ) + s) / (1 + s) * jnp.pi * 0.5 ) ** 2
        alphas_cumprod = alphas_cumprod / alphas_cumprod[0]

        betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])

        return jnp.clip(betas, 0.0001, 0.9999)

    def linear_beta_schedule(self):
        beta_start = 0.0001
        beta_end = 0.02
        return jnp.linspace(beta_start, beta_end, self.time)

    def quadratic_beta_schedule(self):
        beta_start = 0.0001
        beta_end = 0.02
        return jnp.linspace(beta_start**0.5, beta_end**0.5, self.time) ** 2
    
    def sigmoid_beta_schedule(self):
        beta_start = 0.0001
        beta_end = 0.02
        betas = jnp.linspace(-6, 6, self.time)
        sig = 1 / (1 + jnp.exp(-betas))
        return sig * (beta_end - beta_start) + beta_start
    
class Diffuser:
    
    def __init__(self, timesteps=1000):
        self.time = timesteps
        scheduler = VarScheduler(timesteps)
        self.betas = scheduler.linear_beta_schedule()
        self.alphas = 1. - self.betas
        self.alphas_cumprod = jnp.cumprod(self.alphas, axis=0)
        self.alphas_cumprod_prev = jnp.pad(self.alphas_cumprod[:-1], (1,0), constant_values=1.0)
        self.sqrt_recip_alphas = jnp.sqrt(1.0 / self.alphas)

        self.sqrt_alphas_cumprod = jnp.sqrt(self.alphas_cumprod)
        self.sqrt_one_minus_alphas_cumprod = jnp.sqrt(1. - self.alphas_cumprod)

        self.posterior_variance = self.betas * (1. - self.alphas_cumprod_prev) / (1. - self.alphas_cumprod)

    @staticmethod
    def extract(a, t, x_shape):
        batch = x_shape[0]
        out = jnp.take_along_axis(a, t, axis=-1)
        return jnp.array(jnp.reshape(out, (batch, *((1,) * (len(x_shape) - 1)))))
    
    # @partial(jax.jit, static_argnums=(5,))
    def p_sample(self, key, state, params, x, t, t_index):

        betas_t = self.extract(self.betas, t, x.shape)
        sqrt_one_minus_alphas_cumprod_t = self.extract(
            self.sqrt_one_minus_alphas_cumprod, t, x.shape
        )
        sqrt_recip_alphas_t = self.extract(self.sqrt_recip_alphas, t, x.shape)

        # Equation 11 in the paper
        # Use our model (noise predictor) to predict the mean

        model_mean = sqrt_recip_alphas_t * (
            x - betas_t * state.apply_fn({'params': params}, x, time=t) / sqrt_one_minus_alphas_cumprod_t
        )

        if t_index == 0:
            return model_mean
        else:
            posterior_variance_t = self.extract(self.posterior_variance, t, x.shape)
            noise = random.normal(key, x.shape)
            # Algorithm 2 line 4:
            return model_mean + jnp.sqrt(posterior_variance_t) * noise 
    
    # @partial(jax.jit, static_argnums=(3,))
    def p_sample_loop(self, key, state, shape):

        params = jax.lax.stop_gradient(state.params)

        n, b = shape[0], shape[1]
        key, noise_key = random.split(key)
        img = random.normal(noise_key, shape)

        def _sample_fn(key, params, x, t, t_index):
            return self.p_sample(key, state, params, x, t, t_index)

        pp_sample=jax.pmap(
            _sample_fn,
            axis_name='batch',
            static_broadcasted_argnums=(4,)
        )

        print('Sample Shape: ', shape, n)

        imgs = []

        sample_keys = random.split(key, num=1000)

        def sample_loop_fn(t_index, img):
            # going in reverse
            t_index = 1000 - t_index - 1
            rng = jnp.array([sample_keys[t_index]] * n)
            t = jnp.full((n,b,), t_index, dtype=jnp.int32)
            index = jnp.full((n,), t_index, dtype=jnp.int32)
            img = pp_sample(rng, params, img, t, index)  # expect: JIT302
            
            return img


        # for i in tqdm(reversed(range(0, self.time)), desc='sampling loop time step', total=self.time):
            
        #     key, sample_key = random.split(key)
        #     sample_key = jax_utils.replicate(sample_key)

        #     img = pp_sample(sample_key, params, img, jnp.full((n,b,), i, dtype=jnp.int32), i)

        #     imgs.append(jax.device_get(img))

        img = jax.lax.fori_loop(0, 1000, sample_loop_fn, img)
        
        return jax.device_get(img)


if __name__ == "__main__":
    state_key, training_key, sample_key = random.split(random.PRNGKey(42), num=3)
    model = UNet()
    params = model.init(state_key, jnp.ones((1, 32, 32, 3)), time=jnp.ones((1,)))["params"]
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(1e-3))
    state = jax_utils.replicate(state)
    imgs = Diffuser().p_sample_loop(key=sample_key, state=state, shape=(4,4,32,32,3))
