# source: https://github.com/andylolu2/jax-diffusion/blob/085f7795015f973e798a24d4d47ca3676c2c2105/jax_diffusion/diffusion.py
#   (an individual's DDPM/DDIM implementation in JAX and Flax: the Diffuser class)
# observed on jax 0.10.2 CPU: runs correctly under jit. The Diffuser is a static `self` whose
#   schedules never change after __init__; forward draws its timesteps and noise from split
#   keys; the DDPM sampler splits a fresh key per step and passes the Python step index t as a
#   traced argument, so ddpm_backward_step compiles once for all steps (and the DDIM step
#   once for all its steps), and the step at t == 0 adds no noise.
#   Kept: the Diffuser class as written. Changed: `from jax_diffusion.types import ...` ->
#   local aliases (Config is a SimpleNamespace-like object with T, beta_1, beta_T). Added: a
#   stand-in eps_fn (a linear map with the repository's (params, x_t, t, train) signature)
#   and the __main__ block.
# gap: stale-state-attributes
from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax import random

Config = Any
Params = Any
Rng = Any
ndarray = jnp.ndarray


class Diffuser:
    def __init__(self, eps_fn, diffusion_config: Config):
        self.eps_fn = eps_fn
        self.config = diffusion_config
        self.betas = jnp.asarray(self._betas(**diffusion_config))
        self.alphas = jnp.asarray(self._alphas(self.betas))
        self.alpha_bars = jnp.asarray(self._alpha_bars(self.alphas))

    @property
    def steps(self) -> int:
        return self.config.T

    def timesteps(self, steps: int):
        timesteps = jnp.arange(0, self.steps, self.steps // steps)
        timesteps = timesteps.at[-1].set(self.steps - 1)
        return timesteps[::-1]

    @partial(jax.jit, static_argnums=(0,))
    def forward(self, x_0: ndarray, rng: Rng):
        """See algorithm 1 in https://arxiv.org/pdf/2006.11239.pdf

        This function should be `jax.jit`-ed.
        """
        rng1, rng2 = random.split(rng)
        t = random.randint(rng1, (len(x_0), 1), 0, self.steps)
        x_t, eps = self.sample_q(x_0, t, rng2)
        t = t.astype(x_t.dtype)
        return x_t, t, eps

    def sample_q(self, x_0: ndarray, t: ndarray, rng: Rng):
        """Samples x_t given x_0 by the q(x_t|x_0) formula."""
        # (bs, 1)
        alpha_t_bar = self.alpha_bars[t]
        # (bs, 1, 1, 1)
        alpha_t_bar = jnp.expand_dims(alpha_t_bar, (1, 2))

        eps = random.normal(rng, shape=x_0.shape, dtype=x_0.dtype)
        x_t = (alpha_t_bar**0.5) * x_0 + ((1 - alpha_t_bar) ** 0.5) * eps
        return x_t, eps

    @partial(jax.jit, static_argnums=(0,))
    def ddpm_backward_step(self, params: Params, x_t: ndarray, t: int, rng: Rng):
        """See algorithm 2 in https://arxiv.org/pdf/2006.11239.pdf"""
        alpha_t = self.alphas[t]
        alpha_t_bar = self.alpha_bars[t]
        sigma_t = self.betas[t] ** 0.5

        z = (t > 0) * random.normal(rng, shape=x_t.shape, dtype=x_t.dtype)
        eps = self.eps_fn(params, x_t, t, train=False)

        x = (1 / alpha_t**0.5) * (
            x_t - ((1 - alpha_t) / (1 - alpha_t_bar) ** 0.5) * eps
        ) + sigma_t * z

        return x

    def ddpm_backward(self, params: Params, x_T: ndarray, rng: Rng) -> ndarray:
        x = x_T

        for t in range(self.steps - 1, -1, -1):
            rng, rng_ = random.split(rng)
            x = self.ddpm_backward_step(params, x, t, rng_)

        return x

    @partial(jax.jit, static_argnums=(0,))
    def ddim_backward_step(
        self, params: Params, x_t: ndarray, t: ndarray, t_next: ndarray
    ):
        """See section 4.1 and C.1 in https://arxiv.org/pdf/2010.02502.pdf"""
        alpha_t = self.alphas[t]
        alpha_t_next = self.alphas[t_next]

        eps = self.eps_fn(params, x_t, t, train=False)

        x_0 = (x_t - (1 - alpha_t) ** 0.5 * eps) / alpha_t**0.5
        x_t_direction = (1 - alpha_t_next) ** 0.5 * eps
        x_t_next = alpha_t_next**0.5 * x_0 + x_t_direction

        return x_t_next

    def ddim_backward(self, params: Params, x_T: ndarray, steps: int):
        x = x_T

        ts = self.timesteps(steps)
        for t, t_next in zip(ts[:-1], ts[1:]):
            x = self.ddim_backward_step(params, x, t, t_next)

        return x

    @classmethod
    def _betas(cls, beta_1: float, beta_T: float, T: int) -> ndarray:
        return jnp.linspace(beta_1, beta_T, T, dtype=jnp.float32)

    @classmethod
    def _alphas(cls, betas) -> ndarray:
        return 1 - betas

    @classmethod
    def _alpha_bars(cls, alphas) -> ndarray:
        return jnp.cumprod(alphas)

    @staticmethod
    def expand_t(t: int, x: ndarray):
        return jnp.full((len(x), 1), t, dtype=x.dtype)


class DiffusionConfig(dict):
    # stand-in for the repository's ml_collections ConfigDict: attribute access and ** unpacking
    __getattr__ = dict.__getitem__


def eps_fn(params, x_t, t, train):
    # stand-in for the UNet's apply: a linear map of x_t and t
    return params["w"] * x_t + params["b"] * t


if __name__ == "__main__":
    compiles = []

    def on_event(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_event)

    diffuser = Diffuser(eps_fn, DiffusionConfig(beta_1=1e-4, beta_T=0.02, T=20))
    params = {"w": jnp.float32(0.1), "b": jnp.float32(0.001)}
    x_0 = random.normal(random.PRNGKey(0), (4, 8, 8, 1))

    x_t, t, eps = diffuser.forward(x_0, random.PRNGKey(1))
    x_t2, t2, eps2 = diffuser.forward(x_0, random.PRNGKey(2))
    assert x_t.shape == x_0.shape and t.shape == (4, 1)
    assert not jnp.allclose(eps, eps2)  # fresh noise for a fresh key

    # eager reference for one DDPM step: the jitted step with a traced t agrees
    step_key = random.PRNGKey(3)
    z = random.normal(random.clone(step_key), x_t.shape, x_t.dtype)  # the same draw, for the reference
    ref = (1 / diffuser.alphas[5] ** 0.5) * (
        x_t - ((1 - diffuser.alphas[5]) / (1 - diffuser.alpha_bars[5]) ** 0.5) * eps_fn(params, x_t, 5, False)
    ) + diffuser.betas[5] ** 0.5 * z
    assert jnp.allclose(diffuser.ddpm_backward_step(params, x_t, 5, random.clone(step_key)), ref, atol=1e-5)
    # at t == 0 no noise is added
    ref0 = (1 / diffuser.alphas[0] ** 0.5) * (
        x_t - ((1 - diffuser.alphas[0]) / (1 - diffuser.alpha_bars[0]) ** 0.5) * eps_fn(params, x_t, 0, False)
    )
    assert jnp.allclose(diffuser.ddpm_backward_step(params, x_t, 0, random.clone(step_key)), ref0, atol=1e-5)

    before = len(compiles)
    x_T = random.normal(random.PRNGKey(4), x_0.shape)
    out = diffuser.ddpm_backward(params, x_T, random.PRNGKey(5))
    out_ddim = diffuser.ddim_backward(params, x_T, steps=5)
    after = len(compiles)
    out_again = diffuser.ddpm_backward(params, x_T, random.PRNGKey(6))
    assert len(compiles) == after  # a second sampling run compiles nothing
    assert jnp.all(jnp.isfinite(out)) and jnp.all(jnp.isfinite(out_ddim))
    assert not jnp.allclose(out, out_again)  # a different key gives a different sample
    print("compiles during both samplers:", after - before)
