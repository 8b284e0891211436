# source: https://github.com/jameskrice7/Diffrax-for-Information-Asymmetries/blob/d17fa7045c8fcc66a511dea760e0842f8650ff68/finax/modeling/sandbox.py
#   (with finax/modeling/financial_processes.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; every sandbox run splits self.key and hands the fresh half to the simulator,
#   which splits it again for its Brownian, jump-count and jump-size draws; the regime-switching process steps its
#   Markov chain with jnp.where inside lax.scan. Jitted with the step count static (and the frozen config dataclass
#   static), both simulators trace once for repeated runs and match their eager results; successive runs differ.
# good file: a research repository's scripted simulation sweep over jump-diffusion and regime-switching processes.
# gap: other
# added: the imports of financial_processes are inlined (its inject_discontinuities helper dropped); the __main__
#   block that runs the sandbox and the simulators under jax.jit (comparing each with its eager run on a cloned key).
"""Financial process generators with jumps/discontinuities and regime changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp


@dataclass(frozen=True)
class JumpDiffusionConfig:
    drift: float = 0.05
    volatility: float = 0.2
    jump_intensity: float = 0.3
    jump_mean: float = -0.02
    jump_std: float = 0.08


@dataclass(frozen=True)
class RegimeSwitchingConfig:
    low_vol: float = 0.1
    high_vol: float = 0.35
    transition_up: float = 0.02
    transition_down: float = 0.05


def simulate_jump_diffusion(
    key: Any,
    *,
    n_steps: int,
    dt: float,
    s0: float = 1.0,
    config: JumpDiffusionConfig | None = None,
) -> jnp.ndarray:
    """Simulate Merton-style jump diffusion prices."""
    cfg = config or JumpDiffusionConfig()
    kb, kj, kz = jax.random.split(key, 3)
    d_w = jnp.sqrt(dt) * jax.random.normal(kb, shape=(n_steps,))
    jump_counts = jax.random.poisson(kj, lam=cfg.jump_intensity * dt, shape=(n_steps,))
    jump_sizes = cfg.jump_mean + cfg.jump_std * jax.random.normal(kz, shape=(n_steps,))
    jump_component = jump_counts * jump_sizes
    d_log_s = (cfg.drift - 0.5 * cfg.volatility**2) * dt + cfg.volatility * d_w + jump_component
    log_prices = jnp.cumsum(d_log_s) + jnp.log(s0)
    return jnp.concatenate([jnp.array([s0]), jnp.exp(log_prices)])


def simulate_regime_switching_process(
    key: Any,
    *,
    n_steps: int,
    dt: float,
    x0: float = 0.0,
    config: RegimeSwitchingConfig | None = None,
) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Simulate a 2-state volatility process with Markov switching."""
    cfg = config or RegimeSwitchingConfig()
    key_state, key_noise = jax.random.split(key)
    transitions = jax.random.uniform(key_state, shape=(n_steps,))
    noise = jax.random.normal(key_noise, shape=(n_steps,))

    def step(carry, inputs):
        state, x = carry
        u, eps = inputs
        p_up = jnp.where(state == 0, cfg.transition_up, 0.0)
        p_down = jnp.where(state == 1, cfg.transition_down, 0.0)
        next_state = jnp.where(
            state == 0,
            jnp.where(u < p_up, 1, 0),
            jnp.where(u < p_down, 0, 1),
        )
        sigma = jnp.where(next_state == 0, cfg.low_vol, cfg.high_vol)
        next_x = x + sigma * jnp.sqrt(dt) * eps
        return (next_state, next_x), (next_state, next_x)

    (_, _), (states, xs) = jax.lax.scan(step, (jnp.array(0), jnp.array(x0)), (transitions, noise))
    xs = jnp.concatenate([jnp.array([x0]), xs])
    states = jnp.concatenate([jnp.array([0]), states])
    return states, xs


@dataclass(frozen=True)
class SandboxScenario:
    name: str
    n_steps: int = 512
    dt: float = 1 / 252


class ProcessSandbox:
    """Utility class for scripted simulation sweeps inside Python workflows."""

    def __init__(self, seed: int = 0):
        self.key = jax.random.PRNGKey(seed)

    def run_jump_diffusion(self, scenario: SandboxScenario, config: JumpDiffusionConfig | None = None) -> dict[str, Any]:
        self.key, subkey = jax.random.split(self.key)
        prices = simulate_jump_diffusion(
            subkey,
            n_steps=scenario.n_steps,
            dt=scenario.dt,
            config=config,
        )
        log_returns = jnp.diff(jnp.log(prices))
        return {
            "scenario": scenario.name,
            "process": "jump_diffusion",
            "series": prices,
            "summary": {
                "mean_return": float(jnp.mean(log_returns)),
                "volatility": float(jnp.std(log_returns)),
            },
        }

    def run_regime_switching(self, scenario: SandboxScenario, config: RegimeSwitchingConfig | None = None) -> dict[str, Any]:
        self.key, subkey = jax.random.split(self.key)
        states, series = simulate_regime_switching_process(
            subkey,
            n_steps=scenario.n_steps,
            dt=scenario.dt,
            config=config,
        )
        state_changes = jnp.sum(states[1:] != states[:-1])
        return {
            "scenario": scenario.name,
            "process": "regime_switching",
            "series": series,
            "states": states,
            "summary": {
                "state_changes": int(state_changes),
                "volatility": float(jnp.std(jnp.diff(series))),
            },
        }


if __name__ == "__main__":
    traces = []
    jump = jax.jit(lambda key, dt: (traces.append("jump"), simulate_jump_diffusion(key, n_steps=256, dt=dt))[1])
    regime = jax.jit(simulate_regime_switching_process, static_argnames=("n_steps", "config"))

    sandbox = ProcessSandbox(seed=0)
    scenario = SandboxScenario(name="base", n_steps=256)
    runs = [sandbox.run_jump_diffusion(scenario) for _ in range(3)]
    assert not jnp.allclose(runs[0]["series"], runs[1]["series"])
    assert not jnp.allclose(runs[1]["series"], runs[2]["series"])
    r1 = sandbox.run_regime_switching(scenario, RegimeSwitchingConfig())
    r2 = sandbox.run_regime_switching(scenario, RegimeSwitchingConfig())
    assert not jnp.allclose(r1["series"], r2["series"])

    key = jax.random.PRNGKey(1)
    for k in jax.random.split(key, 4):
        # the same key given to the jitted and the eager call, as clones (one use each)
        eager = simulate_jump_diffusion(jax.random.clone(k), n_steps=256, dt=1 / 252)
        assert jnp.allclose(jump(jax.random.clone(k), 1 / 252), eager, rtol=1e-5)
        s_jit, x_jit = regime(jax.random.clone(k), n_steps=256, dt=1 / 252, config=RegimeSwitchingConfig())
        s_eager, x_eager = simulate_regime_switching_process(k, n_steps=256, dt=1 / 252, config=RegimeSwitchingConfig())
        assert (s_jit == s_eager).all() and jnp.allclose(x_jit, x_eager, atol=1e-5)
    assert traces == ["jump"], traces
    print("ok", runs[0]["summary"], r1["summary"])
