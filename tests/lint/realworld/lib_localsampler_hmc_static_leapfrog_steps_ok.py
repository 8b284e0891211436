# source: https://github.com/wchen99998/local_sampler/commit/f0b5e6b3f805c0e48e5ea2ddb8a0e4fa9e0f2bb2
#   (the HMC transition of a segment-flow-matching sampler as fixed by "fix: optimize HMC
#   function by making leapfrog_steps and step_size static for control flow":
#   locally_tilted_sampler/segment_flow_matching.py at that commit)
# observed on jax 0.10.2 CPU: hmc is jitted with nnx.jit(static_argnums=(2, 3)), so
#   leapfrog_steps and step_size reach one_step as Python numbers: the guard is Python
#   control flow on them, fori_loop runs a static trip count, and the transition moves the
#   points.
# gap: static-hashability
# added: the imports; GaussianDensity from locally_tilted_sampler/densities.py of the same
#   commit as the target density; the __main__ block, which makes the "hmc" transition as
#   train_locally_tilted_sampler does and runs two random-walk stages on 128 points.
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence, Tuple

import flax.nnx as nnx
import jax
import jax.numpy as jnp

Array = jnp.ndarray

LOG2PI = math.log(2.0 * math.pi)


def _as_array(x: Array | Sequence[float]) -> Array:
    return jnp.asarray(x, dtype=jnp.float32)


@dataclass(frozen=True)
class GaussianDensity:
    mean: Array
    cov: Array
    precision: Array
    log_norm: Array

    @classmethod
    def from_mean_cov(cls, mean: Sequence[float], cov: Sequence[Sequence[float]]) -> "GaussianDensity":
        m = _as_array(mean)
        c = _as_array(cov)
        precision = jnp.linalg.inv(c)
        _, logdet = jnp.linalg.slogdet(c)
        log_norm = -0.5 * (m.shape[-1] * LOG2PI + logdet)
        return cls(mean=m, cov=c, precision=precision, log_norm=log_norm)

    def log_prob(self, x: Array) -> Array:
        diff = x - self.mean
        mahal = jnp.einsum("...i,ij,...j->...", diff, self.precision, diff)
        return self.log_norm - 0.5 * mahal

    def sample(self, key: jax.Array, shape: Tuple[int, ...]) -> Array:
        return jax.random.multivariate_normal(key, self.mean, self.cov, shape)


def apply_random_walk(key: jax.Array, x: Array, steps: int, step_std: float) -> Array:
    if steps <= 0 or step_std <= 0.0:
        return x
    scale = step_std * jnp.sqrt(float(steps))
    noise = jax.random.normal(key, x.shape) * scale
    return x + noise


def make_hmc_transition(log_prob_fn: Callable[[Array], Array]):
    def log_prob_single(x: Array) -> Array:
        lp = log_prob_fn(x[None, ...])
        return jnp.squeeze(lp, axis=0)

    grad_log_prob = jax.grad(log_prob_single)

    def _energy(x: Array, p: Array) -> Array:
        return -log_prob_single(x) + 0.5 * jnp.sum(p * p)

    def one_step(key: jax.Array, x0: Array, step_size: float, leapfrog_steps: int) -> Array:
        if leapfrog_steps <= 0 or step_size <= 0.0:
            return x0
        key_mom, key_acc = jax.random.split(key)
        p0 = jax.random.normal(key_mom, x0.shape)

        def leapfrog(_, state):
            x, p = state
            p = p + 0.5 * step_size * grad_log_prob(x)
            x = x + step_size * p
            p = p + 0.5 * step_size * grad_log_prob(x)
            return x, p

        x_prop, p_prop = jax.lax.fori_loop(0, leapfrog_steps, leapfrog, (x0, p0))
        h0 = _energy(x0, p0)
        h_prop = _energy(x_prop, p_prop)
        log_accept = -(h_prop - h0)
        logu = jnp.log(jax.random.uniform(key_acc))
        accept = logu < log_accept
        return jnp.where(accept, x_prop, x0)

    @nnx.jit(static_argnums=(2, 3))  # keep leapfrog_steps and step_size static for control flow
    def hmc(key: jax.Array, x: Array, leapfrog_steps: int, step_size: float) -> Array:
        n = x.shape[0]
        keys = jax.random.split(key, n)
        return jax.vmap(one_step, in_axes=(0, 0, None, None))(keys, x, step_size, leapfrog_steps)

    return hmc


def make_transition_fn(mode: str, log_prob_fn: Callable[[Array], Array] | None):
    mode = mode.lower()
    if mode not in {"gaussian", "hmc"}:
        raise ValueError(f"random_walk_mode must be 'gaussian' or 'hmc', got '{mode}'.")
    if mode == "gaussian":
        return lambda key, x, steps, std: apply_random_walk(key, x, int(steps), float(std))
    if log_prob_fn is None:
        raise ValueError("HMC transition requires a log_prob_fn.")
    hmc = make_hmc_transition(log_prob_fn)
    return lambda key, x, steps, std: hmc(key, x, int(steps), float(std))


if __name__ == "__main__":
    target = GaussianDensity.from_mean_cov([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    transition_fn = make_transition_fn("hmc", target.log_prob)
    rng, rw_key = jax.random.split(jax.random.PRNGKey(0))
    x0 = jax.random.normal(rng, (128, 2)) * 1.5
    x1 = transition_fn(rw_key, x0, 5, 0.1)
    rng, rw_key = jax.random.split(rng)  # tolerate: JIT502
    x2 = transition_fn(rw_key, x1, 5, 0.1)
    assert x2.shape == (128, 2) and bool(jnp.any(x1 != x0))
    gaussian = make_transition_fn("gaussian", None)
    x3 = gaussian(rw_key, x2, 0, 0.1)
    assert x3 is x2
