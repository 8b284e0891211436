# source: https://github.com/jcopo/diffuse/blob/154d39063e0ec0c44706e9fe6bee4e77d35e06b6/diffuse/timer/base.py
#   (a lab's JAX library for diffusion priors in Bayesian inverse problems; DDIMTimer with
#   DDIMIntegrator and ChurnedIntegrator of diffuse/integrator/{deterministic,base}.py and
#   Denoiser of diffuse/denoisers/denoiser.py at the same commit)
# observed on jax 0.10.2 CPU: Denoiser.generate runs the sampler in lax.scan, so the step
#   counter the integrator hands its timer is a tracer; DDIMTimer.__call__ turns the index it
#   computes from it into a Python int with `.item()` and raises ConcretizationTypeError there
#   (the first timer call, in ChurnedIntegrator._churn_fn). The timer's own __main__ calls it
#   with Python ints, where it works.
# gap: exemption-vs-JAX
# Kept: DDIMTimer, DDIMIntegrator, ChurnedIntegrator, apply_stochastic_churn,
#   next_churn_noise_level, IntegratorState and Denoiser as written (docstrings dropped).
#   Added: the imports in place of the package's, SDE/LinearSchedule from diffuse/diffusion/
#   sde.py reduced to signal and noise levels, a stand-in Predictor holding only `noise` (zero
#   noise prediction in place of a trained network), and the __main__ block.
# The churn branch is only traced after the timer call that raises: there apply_stochastic_churn
#   draws normal noise from the rng_key DDIMIntegrator has already split (a reuse the error
#   hides, tolerated) and reads timer.tf, which DDIMTimer lacks.
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, NamedTuple, Optional, Tuple, Union

import jax
import jax.numpy as jnp
from jaxtyping import Array, PRNGKeyArray


@dataclass
class LinearSchedule:
    b_min: float
    b_max: float
    t0: float
    T: float

    def integrate(self, t: Array, s: Array) -> Array:
        b_min, b_max, t0, T = self.b_min, self.b_max, self.t0, self.T
        slope = (b_max - b_min) / (T - t0)
        intercept = (b_min * T - b_max * t0) / (T - t0)
        return 0.5 * (t - s) * (slope * (t + s) + 2 * intercept)


@dataclass
class SDE:
    beta: LinearSchedule

    def noise_level(self, t: Array) -> Array:
        alpha = jnp.exp(-self.beta.integrate(t, jnp.zeros_like(t)))
        sigma = jnp.sqrt(1 - alpha)
        sigma = jnp.clip(sigma, 0.001, 0.9999)
        return sigma

    def signal_level(self, t: Array) -> Array:
        alpha = jnp.sqrt(jnp.exp(-self.beta.integrate(t, jnp.zeros_like(t))))
        alpha = jnp.clip(alpha, 0.001, 0.9999)
        return alpha


@dataclass
class Predictor:
    # stand-in: diffuse.predictor.Predictor reduced to the noise prediction DDIM reads
    network: Callable

    def noise(self, x: Array, t: Array) -> Array:
        return self.network(x, t)


@dataclass
class Timer:
    n_steps: int

    def __call__(self, step: int) -> float: ...


@dataclass
class DDIMTimer(Timer):
    n_time_training: int
    c_1: float = 0.001
    c_2: float = 0.008
    j0: int = 8

    def __post_init__(self):
        def body_fun(u, i):
            alpha = self._alpha(i)
            alpha_next = self._alpha(i - 1)
            maxi = jnp.maximum(alpha_next / alpha, self.c_1)
            u_next = jnp.sqrt((u**2 + 1) / maxi - 1)
            return u_next, u_next

        indices = jnp.arange(self.n_time_training, 0, -1)
        _, self.u_list = jax.lax.scan(body_fun, 0.0, indices)

    def __call__(self, step: int) -> float:
        j = jnp.floor(self.j0 + (self.n_time_training - 1 - self.j0) * step / (self.n_steps - 1) + 0.5).astype(int).item()  # expect: JIT401
        return self.u_list[j]

    def _alpha(self, j: int) -> float:
        return jnp.sin(0.5 * jnp.pi * j / (self.n_time_training * (self.c_2 + 1))) ** 2


class IntegratorState(NamedTuple):
    position: Array
    rng_key: PRNGKeyArray
    step: int = 0


@dataclass
class Integrator:
    model: SDE
    timer: Timer

    def init(self, position: Array, rng_key: PRNGKeyArray) -> IntegratorState:
        return IntegratorState(position, rng_key)


@dataclass
class ChurnedIntegrator(Integrator):
    stochastic_churn_rate: float = 0.0
    churn_min: float = 0.0
    churn_max: float = 0.0
    noise_inflation_factor: float = 1.0

    def _churn_fn(self, integrator_state: IntegratorState) -> Tuple[Array, float]:
        position, _, step = integrator_state
        t = self.timer(step)
        _apply_stochastic_churn = partial(
            apply_stochastic_churn,
            stochastic_churn_rate=self.stochastic_churn_rate,
            churn_min=self.churn_min,
            churn_max=self.churn_max,
            noise_inflation_factor=self.noise_inflation_factor,
            model=self.model,
            timer=self.timer,
        )
        position_churned, t_churned = jax.lax.cond(
            self.stochastic_churn_rate > 0,
            _apply_stochastic_churn,
            lambda _: (position, t),
            integrator_state,
        )
        return position_churned, t_churned


def next_churn_noise_level(
    t: float,
    stochastic_churn_rate: float,
    churn_min: float,
    churn_max: float,
    timer: Timer,
) -> float:
    churn_rate = jnp.where(
        stochastic_churn_rate / timer.n_steps - jnp.sqrt(2) + 1 > 0,
        jnp.sqrt(2) - 1,
        stochastic_churn_rate / timer.n_steps,
    )
    churn_rate = jnp.where(t > churn_min, jnp.where(t < churn_max, churn_rate, 0), 0)
    t_churned = t * (1 + churn_rate)
    # Ensure churned time doesn't exceed timer bounds
    return jnp.minimum(t_churned, timer.tf)


def apply_stochastic_churn(
    integrator_state: IntegratorState,
    stochastic_churn_rate: float,
    churn_min: float,
    churn_max: float,
    noise_inflation_factor: float,
    model: SDE,
    timer: Timer,
) -> Tuple[Array, float]:
    position, rng_key, step = integrator_state
    t = timer(step)

    t_churned = next_churn_noise_level(t, stochastic_churn_rate, churn_min, churn_max, timer)
    alpha = model.signal_level(t)
    sigma = model.noise_level(t)
    sigma_churned = model.noise_level(t_churned)
    alpha_churned = model.signal_level(t_churned)

    delta_sigma = jnp.sqrt(jnp.maximum(0.0, sigma_churned**2 - (alpha_churned * sigma / alpha) ** 2))

    new_position = (alpha_churned / alpha) * position + jax.random.normal(rng_key, position.shape) * delta_sigma * noise_inflation_factor  # tolerate: JIT502

    return new_position, t_churned


@dataclass
class DDIMIntegrator(ChurnedIntegrator):
    model: SDE

    def __call__(self, integrator_state: IntegratorState, predictor: Predictor) -> IntegratorState:
        _, rng_key, step = integrator_state
        _, rng_key_next = jax.random.split(rng_key)

        position_churned, t_churned = self._churn_fn(integrator_state)

        t_next = self.timer(step + 1)

        signal_level_churned = self.model.signal_level(t_churned)
        signal_level_next = self.model.signal_level(t_next)
        sigma_churned = self.model.noise_level(t_churned)
        sigma_next = self.model.noise_level(t_next)

        eps = predictor.noise(position_churned, t_churned)

        pred_x0 = (position_churned - sigma_churned * eps) / signal_level_churned

        position_next = signal_level_next * pred_x0 + sigma_next * eps

        return IntegratorState(position_next, rng_key_next, step + 1)


class DenoiserState(NamedTuple):
    integrator_state: IntegratorState


@dataclass
class Denoiser:
    integrator: Integrator
    model: SDE
    predictor: Predictor
    x0_shape: Tuple[int, ...]

    def __post_init__(self):
        # Scan bodies hoisted per instance: a fresh closure per generate()
        # call defeats JAX's trace cache, re-tracing and re-compiling the
        # full network on every call.
        def make_body(keep_history):
            def body_fun(state, _):
                state_next = jax.vmap(self.step)(state)
                return state_next, state_next.integrator_state.position if keep_history else None

            return body_fun

        self._scan_body = {kh: make_body(kh) for kh in (False, True)}

    def init(self, position: Array, rng_key: PRNGKeyArray) -> DenoiserState:
        integrator_state = self.integrator.init(position, rng_key)
        return DenoiserState(integrator_state)

    def step(
        self,
        state: DenoiserState,
    ) -> DenoiserState:
        integrator_state = state.integrator_state
        integrator_state_next = self.integrator(integrator_state, self.predictor)
        return DenoiserState(integrator_state_next)

    def generate(
        self,
        rng_key: PRNGKeyArray,
        n_steps: int,
        n_particles: int,
        keep_history: bool = False,
        data_sharding: Optional[Any] = None,
    ) -> Tuple[DenoiserState, Union[Array, None]]:
        rng_key, rng_key_start = jax.random.split(rng_key)

        rndm_start = jax.random.normal(rng_key_start, shape=(n_particles, *self.x0_shape))

        # Shard the initial noise if sharding is provided
        if data_sharding is not None:
            rndm_start = jax.device_put(rndm_start, data_sharding)

        keys = jax.random.split(rng_key, n_particles)

        # Also shard the keys
        if data_sharding is not None:
            keys = jax.device_put(keys, data_sharding)

        state = jax.vmap(self.init, in_axes=(0, 0))(rndm_start, keys)

        return jax.lax.scan(self._scan_body[keep_history], state, jnp.arange(n_steps))


if __name__ == "__main__":
    n_steps = 20
    timer = DDIMTimer(n_steps=n_steps, n_time_training=1000)
    print(timer(0), timer(10))  # the timer's own check: Python int steps work
    sde = SDE(beta=LinearSchedule(b_min=0.1, b_max=20.0, t0=0.0, T=1.0))
    integrator = DDIMIntegrator(model=sde, timer=timer)
    denoiser = Denoiser(integrator=integrator, model=sde,
                        predictor=Predictor(lambda x, t: jnp.zeros_like(x)), x0_shape=(4, 4))
    denoiser.generate(jax.random.PRNGKey(0), n_steps, 8)
