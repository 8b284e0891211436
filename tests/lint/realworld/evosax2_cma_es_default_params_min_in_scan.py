# source: https://github.com/RobertTLange/evosax/issues/2 (CMA_ES.params_strategy and
#   Strategy.default_params as they stood at 18f4db5f5a8203729a73dbca99957fb409499b37, the
#   evosax of the report; the traceback points at `min(` in params_strategy)
# observed on jax 0.10.2 CPU: reading `strategy.default_params` inside a `jax.lax.scan` body
#   raises TracerBoolConversionError at the builtin `min(...)`: under the scan trace every
#   jnp operation on the Python ints popsize and num_dims returns a tracer, so `min` compares
#   tracers (outside a trace, "in a standard for loop", it works). The boolean masks
#   `weights_prime[weights_prime > 0]` below it would raise next (NonConcreteBooleanIndexError)
#   and are tolerated: line 71 never lets them run. Added: the scan loop in `__main__`, a
#   stand-in for the reporter's notebook (not in the thread); only params_strategy of CMA_ES
#   is kept. Current spelling: `jax.ops.index_update(weights, jax.ops.index[k:], 0)` is
#   `weights.at[k:].set(0)`.
# gap: omnistaging
import jax
import jax.numpy as jnp
import chex


class Strategy(object):
    def __init__(self, num_dims: int, popsize: int):
        """Base Class for an Evolution Strategy."""
        self.num_dims = num_dims
        self.popsize = popsize

    @property
    def default_params(self) -> chex.ArrayTree:
        """Return default parameters of evolution strategy."""
        params = self.params_strategy
        # Add shared parameter clipping and archive init params
        params["clip_min"] = -jnp.finfo(jnp.float32).max
        params["clip_max"] = jnp.finfo(jnp.float32).max
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

    @property
    def params_strategy(self) -> chex.ArrayTree:
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
        min_alpha = min(  # expect: JIT401
            1 + c_1 / c_mu,
            1 + (2 * mu_eff_minus) / (mu_eff + 2),
            (1 - c_1 - c_mu) / (self.num_dims * c_mu),
        )
        positive_sum = jnp.sum(weights_prime[weights_prime > 0])  # tolerate: JIT403
        negative_sum = jnp.sum(jnp.abs(weights_prime[weights_prime < 0]))  # tolerate: JIT403
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

        params = {
            "mu_eff": mu_eff,
            "c_1": c_1,
            "c_mu": c_mu,
            "c_m": 1.0,
            "c_sigma": c_sigma,
            "d_sigma": d_sigma,
            "c_c": c_c,
            "chi_n": chi_n,
            "weights": weights,
            "sigma_init": 1.0,
            "weights_truncated": weights_truncated,
            "init_min": 0.0,
            "init_max": 0.0,
        }
        return params


if __name__ == "__main__":
    strategy = CMA_ES(num_dims=1, popsize=20, elite_ratio=0.5)
    strategy.default_params  # outside a trace: fine

    def es_step(carry, _):
        es_params = strategy.default_params
        return carry + es_params["c_1"], None

    jax.lax.scan(es_step, 0.0, None, length=3)
