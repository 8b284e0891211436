# source: https://github.com/RobertTLange/evosax/blob/db4a7054c31da2ff197eace8c82a99e8b4931a3a/evosax/strategies/cma_es.py
#   (db4a705 "Update ARS, CMA_ES with `EvoState`, `EvoParams`", which replaces the builtin
#   `min(...)` of evosax#2 with nested `jnp.minimum` and the boolean masks with products)
# observed on jax 0.10.2 CPU: runs clean; `strategy.default_params` read inside a `lax.scan`
#   body under `jax.jit` gives the same parameters as outside a trace. Only EvoParams, the
#   Strategy base's __init__ and default_params, and CMA_ES.__init__ and params_strategy are
#   kept. Added: the `__main__` block.
# gap: omnistaging
import jax
import jax.numpy as jnp
import chex
from functools import partial
from flax import struct


@struct.dataclass
class EvoParams:
    mu_eff: float
    c_1: float
    c_mu: float
    c_sigma: float
    d_sigma: float
    c_c: float
    chi_n: float
    weights: chex.Array
    weights_truncated: chex.Array
    c_m: float = 1.0
    sigma_init: float = 0.065
    init_min: float = 0.0
    init_max: float = 0.0
    clip_min: float = -jnp.finfo(jnp.float32).max
    clip_max: float = jnp.finfo(jnp.float32).max


class Strategy(object):
    def __init__(self, num_dims: int, popsize: int):
        """Base Class for an Evolution Strategy."""
        self.num_dims = num_dims
        self.popsize = popsize

    @property
    def default_params(self) -> EvoParams:
        """Return default parameters of evolution strategy."""
        params = self.params_strategy()
        return params


class CMA_ES(Strategy):
    def __init__(self, num_dims: int, popsize: int, elite_ratio: float = 0.5):
        """CMA-ES (e.g. Hansen, 2016)
        Reference: https://arxiv.org/abs/1604.00772
        Inspired by: https://github.com/CyberAgentAILab/cmaes"""
        super().__init__(num_dims, popsize)
        assert 0 <= elite_ratio <= 1
        self.elite_ratio = elite_ratio
        self.elite_popsize = int(self.popsize * self.elite_ratio)
        self.strategy_name = "CMA_ES"

    @partial(jax.jit, static_argnums=(0,))
    def params_strategy(self) -> EvoParams:
        """Return default parameters of evolution strategy."""
        weights_prime = jnp.array(
            [
                jnp.log((self.popsize + 1) / 2) - jnp.log(i + 1)
                for i in range(self.popsize)
            ]
        )
        mu_eff = (jnp.sum(weights_prime[: self.elite_popsize]) ** 2) / jnp.sum(
            weights_prime[: self.elite_popsize] ** 2
        )
        mu_eff_minus = (
            jnp.sum(weights_prime[self.elite_popsize :]) ** 2
        ) / jnp.sum(weights_prime[self.elite_popsize :] ** 2)

        # lrates for rank-one and rank-μ C updates
        alpha_cov = 2
        c_1 = alpha_cov / ((self.num_dims + 1.3) ** 2 + mu_eff)
        c_mu = jnp.minimum(
            1 - c_1 - 1e-8,
            alpha_cov
            * (mu_eff - 2 + 1 / mu_eff)
            / ((self.num_dims + 2) ** 2 + alpha_cov * mu_eff / 2),
        )
        min_alpha = jnp.minimum(
            1 + c_1 / c_mu, 1 + (2 * mu_eff_minus) / (mu_eff + 2)
        )
        min_alpha = jnp.minimum(
            min_alpha, (1 - c_1 - c_mu) / (self.num_dims * c_mu)
        )
        positive_sum = jnp.sum(weights_prime * (weights_prime > 0))
        negative_sum = jnp.sum(jnp.abs(weights_prime * (weights_prime < 0)))
        weights = jnp.where(
            weights_prime >= 0,
            1 / positive_sum * weights_prime,
            min_alpha / negative_sum * weights_prime,
        )
        weights_truncated = weights.at[self.elite_popsize :].set(0)

        # lrate for cumulation of step-size control and rank-one update
        c_sigma = (mu_eff + 2) / (self.num_dims + mu_eff + 5)
        d_sigma = (
            1
            + 2
            * jnp.maximum(0, jnp.sqrt((mu_eff - 1) / (self.num_dims + 1)) - 1)
            + c_sigma
        )
        c_c = (4 + mu_eff / self.num_dims) / (
            self.num_dims + 4 + 2 * mu_eff / self.num_dims
        )
        chi_n = jnp.sqrt(self.num_dims) * (
            1.0
            - (1.0 / (4.0 * self.num_dims))
            + 1.0 / (21.0 * (self.num_dims ** 2))
        )

        params = EvoParams(
            mu_eff=mu_eff,
            c_1=c_1,
            c_mu=c_mu,
            c_sigma=c_sigma,
            d_sigma=d_sigma,
            c_c=c_c,
            chi_n=chi_n,
            weights=weights,
            weights_truncated=weights_truncated,
        )
        return params


if __name__ == "__main__":
    strategy = CMA_ES(num_dims=1, popsize=20, elite_ratio=0.5)
    eager = strategy.default_params

    @jax.jit
    def run():
        def es_step(carry, _):
            es_params = strategy.default_params
            return carry, es_params.weights
        return jax.lax.scan(es_step, 0.0, None, length=3)[1]

    traced_weights = run()
    assert jnp.allclose(traced_weights[-1], eager.weights, atol=1e-6)
