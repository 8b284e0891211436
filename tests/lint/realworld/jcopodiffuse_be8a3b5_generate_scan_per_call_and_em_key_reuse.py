# source: https://github.com/jcopo/diffuse/blob/be8a3b535bd847e1e82fa7324dbe11dce8a0f6af/diffuse/denoisers/denoiser.py
#   (a lab's JAX library for diffusion priors in Bayesian inverse problems and experimental
#   design; with EulerMaruyamaIntegrator of diffuse/integrator/stochastic.py, VpTimer of
#   diffuse/timer/base.py, IntegratorState/Integrator of diffuse/integrator/base.py and
#   SDE/LinearSchedule of diffuse/diffusion/sde.py at the same commit. The per-call
#   recompilation was fixed in commit fcfade4, "Hoist Denoiser scan bodies out of generate()")
# observed on jax 0.10.2 CPU: Denoiser.generate hands lax.scan a body_fun it defines anew on
#   every call, so every generate call traces the sampler again and compiles the scan again
#   (3 later calls with the same shapes: 5 compilations, where the hoisted body of fcfade4 gives 2). EulerMaruyamaIntegrator
#   draws the step's noise with jax.random.normal(rng_key, ...) and then splits the same
#   rng_key for the next step's key: JAX's key-reuse checker (typed key, jax_debug_key_reuse)
#   raises KeyReuseError at that split.
# gap: per-call-recompile
# Kept: Denoiser.generate/init/step, EulerMaruyamaIntegrator.__call__, VpTimer, IntegratorState,
#   SDE and LinearSchedule as written (docstrings shortened). Added: the imports in place of
#   the package's, a stand-in Predictor holding only `score` (the exact score -x of N(0, I)
#   data under the VP SDE stands in for the trained network), DiffusionModel trimmed to its
#   abstract methods, and the __main__ block.
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional, Tuple, Union

import jax
import jax.numpy as jnp
from jaxtyping import Array, PRNGKeyArray


class SDEState(NamedTuple):
    position: Array
    t: Array


@dataclass
class LinearSchedule:
    b_min: float
    b_max: float
    t0: float
    T: float

    def __call__(self, t: Array) -> Array:
        b_min, b_max, t0, T = self.b_min, self.b_max, self.t0, self.T
        return (b_max - b_min) / (T - t0) * t + (b_min * T - b_max * t0) / (T - t0)

    def integrate(self, t: Array, s: Array) -> Array:
        b_min, b_max, t0, T = self.b_min, self.b_max, self.t0, self.T
        slope = (b_max - b_min) / (T - t0)
        intercept = (b_min * T - b_max * t0) / (T - t0)
        return 0.5 * (t - s) * (slope * (t + s) + 2 * intercept)


class DiffusionModel(ABC):
    @abstractmethod
    def sde_coefficients(self, t: Array) -> tuple[Array, Array]:
        pass


@dataclass
class SDE(DiffusionModel):
    beta: LinearSchedule

    def __post_init__(self):
        self.tf = self.beta.T

    def sde_coefficients(self, t: Array) -> tuple[Array, Array]:
        """SDE coefficients for dX(t) = -0.5 β(t) X(t) dt + √β(t) dW(t)."""
        beta_t = self.beta(t)
        f_t = -0.5 * beta_t
        g_t = jnp.sqrt(beta_t)
        return f_t, g_t


@dataclass
class Predictor:
    # stand-in: diffuse.predictor.Predictor reduced to the score the integrator reads
    model: DiffusionModel
    network: Callable

    def score(self, x: Array, t: Array) -> Array:
        return self.network(x, t)


@dataclass
class Timer:
    n_steps: int

    def __call__(self, step: int) -> float: ...


@dataclass
class VpTimer(Timer):
    eps: float
    tf: float

    def __call__(self, step: int) -> float:
        return self.tf + step / self.n_steps * (self.eps - self.tf)


class IntegratorState(NamedTuple):
    position: Array
    rng_key: PRNGKeyArray
    step: int = 0


@dataclass
class Integrator:
    model: DiffusionModel
    timer: Timer

    def init(self, position: Array, rng_key: PRNGKeyArray) -> IntegratorState:
        return IntegratorState(position, rng_key)

    def __call__(self, integrator_state: IntegratorState, predictor: Predictor) -> IntegratorState:
        ...


@dataclass
class EulerMaruyamaIntegrator(Integrator):
    r"""Euler-Maruyama stochastic integrator for Stochastic Differential Equations (SDEs)."""

    model: DiffusionModel

    def __call__(self, integrator_state: IntegratorState, predictor: Predictor) -> IntegratorState:
        position, rng_key, step = integrator_state
        t, t_next = self.timer(step), self.timer(step + 1)
        dt = t - t_next
        f_t, g_t = self.model.sde_coefficients(t)
        # For reverse-time: drift = f(t)*x - g(t)^2*score, but rearranged as: g(t)^2 * (0.5*x + score)
        # Since f(t) = -0.5*beta(t) and g(t) = sqrt(beta(t)), we have beta(t) = g(t)^2
        drift = g_t * g_t * (0.5 * position + predictor.score(position, t))
        diffusion = g_t
        noise = jax.random.normal(rng_key, position.shape) * jnp.sqrt(dt)

        dx = drift * dt + diffusion * noise
        _, rng_key_next = jax.random.split(rng_key)  # expect: JIT502
        return IntegratorState(position + dx, rng_key_next, step + 1)


class DenoiserState(NamedTuple):
    """Base state for all denoisers"""

    integrator_state: IntegratorState


@dataclass
class Denoiser:
    integrator: Integrator
    model: DiffusionModel
    predictor: Predictor
    x0_shape: Tuple[int, ...]

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

        def body_fun(state, _):
            state_next = jax.vmap(self.step)(state)
            return state_next, state_next.integrator_state.position if keep_history else None

        return jax.lax.scan(body_fun, state, jnp.arange(n_steps))  # expect: JIT301


if __name__ == "__main__":
    import traceback

    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    n_steps = 50
    sde = SDE(beta=LinearSchedule(b_min=0.1, b_max=20.0, t0=0.0, T=1.0))
    timer = VpTimer(n_steps=n_steps, eps=0.001, tf=1.0)
    predictor = Predictor(sde, lambda x, t: -x)  # data N(0, I): the score is -x at every t
    integrator = EulerMaruyamaIntegrator(model=sde, timer=timer)
    denoiser = Denoiser(integrator=integrator, model=sde, predictor=predictor, x0_shape=(4, 4))

    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    state, _ = denoiser.generate(keys[0], n_steps, 64)
    x0 = state.integrator_state.position
    assert x0.shape == (64, 4, 4) and bool(jnp.all(jnp.isfinite(x0)))
    before = len(compiles)
    for k in keys[1:]:
        state, _ = denoiser.generate(k, n_steps, 64)
        state.integrator_state.position.block_until_ready()
    # observed: line 191 compiles the scan again on each of the 3 later generate calls
    assert len(compiles) - before >= 3, compiles[before:]
    print("scan compilations in 3 later generate calls:", len(compiles) - before)

    # observed: line 134 splits the rng_key random.normal consumed: under the key-reuse checker
    # with a typed key, one integrator step raises KeyReuseError there
    jax.config.update("jax_debug_key_reuse", True)
    try:
        integrator(IntegratorState(jnp.zeros((4, 4)), jax.random.key(1), 0), predictor)
        raise AssertionError("no KeyReuseError")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 134, frames
        print("line 134: KeyReuseError:", str(e).splitlines()[0])
    finally:
        jax.config.update("jax_debug_key_reuse", False)
