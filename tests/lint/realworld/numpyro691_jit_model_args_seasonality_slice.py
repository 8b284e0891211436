# source: https://github.com/pyro-ppl/numpyro/issues/691 (the reporter ran the sgt model of
#   numpyro's time-series forecasting tutorial, notebooks/source/time_series_forecasting.ipynb
#   at ea09898c, with jit_model_args=True; the thread names `seasonality` as the cause)
# observed on jax 0.10.2 CPU with numpyro 0.22: with jit_model_args=True MCMC traces the
#   model's arguments, seasonality=38 included, and `y[:seasonality]` raises (a slice with a
#   traced bound, an IndexError from jnp's indexing). Added: the imports, a stand-in series
#   for the lynx data the tutorial downloads, and a short MCMC run (one chain, 2+2 steps)
#   instead of 5000+5000 on four chains; `jnp.clip(..., a_min=0)` is spelled `min=0`, as jax
#   0.10 removed `a_min`.
# gap: other
import jax.numpy as jnp
import numpy as np
from jax import random

import numpyro
import numpyro.distributions as dist
from numpyro.contrib.control_flow import scan
from numpyro.infer import MCMC, NUTS


def sgt(y, seasonality, future=0):
    # heuristically, standard derivation of Cauchy prior depends on
    # the max value of data
    cauchy_sd = jnp.max(y) / 150

    # NB: priors' parameters are taken from
    # https://github.com/cbergmeir/Rlgt/blob/master/Rlgt/R/rlgtcontrol.R
    nu = numpyro.sample("nu", dist.Uniform(2, 20))
    powx = numpyro.sample("powx", dist.Uniform(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfCauchy(cauchy_sd))
    offset_sigma = numpyro.sample(
        "offset_sigma", dist.TruncatedCauchy(low=1e-10, loc=1e-10, scale=cauchy_sd)
    )

    coef_trend = numpyro.sample("coef_trend", dist.Cauchy(0, cauchy_sd))
    pow_trend_beta = numpyro.sample("pow_trend_beta", dist.Beta(1, 1))
    # pow_trend takes values from -0.5 to 1
    pow_trend = 1.5 * pow_trend_beta - 0.5
    pow_season = numpyro.sample("pow_season", dist.Beta(1, 1))

    level_sm = numpyro.sample("level_sm", dist.Beta(1, 2))
    s_sm = numpyro.sample("s_sm", dist.Uniform(0, 1))
    init_s = numpyro.sample("init_s", dist.Cauchy(0, y[:seasonality] * 0.3))  # expect: JIT404

    def transition_fn(carry, t):
        level, s, moving_sum = carry
        season = s[0] * level ** pow_season
        exp_val = level + coef_trend * level ** pow_trend + season
        exp_val = jnp.clip(exp_val, min=0)
        # use expected vale when forecasting
        y_t = jnp.where(t >= N, exp_val, y[t])

        moving_sum = (
            moving_sum + y[t] - jnp.where(t >= seasonality, y[t - seasonality], 0.0)
        )
        level_p = jnp.where(t >= seasonality, moving_sum / seasonality, y_t - season)
        level = level_sm * level_p + (1 - level_sm) * level
        level = jnp.clip(level, min=0)

        new_s = (s_sm * (y_t - level) / season + (1 - s_sm)) * s[0]
        # repeat s when forecasting
        new_s = jnp.where(t >= N, s[0], new_s)
        s = jnp.concatenate([s[1:], new_s[None]], axis=0)

        omega = sigma * exp_val ** powx + offset_sigma
        y_ = numpyro.sample("y", dist.StudentT(nu, exp_val, omega))

        return (level, s, moving_sum), y_

    N = y.shape[0]
    level_init = y[0]
    s_init = jnp.concatenate([init_s[1:], init_s[:1]], axis=0)
    moving_sum = level_init
    with numpyro.handlers.condition(data={"y": y[1:]}):
        _, ys = scan(
            transition_fn, (level_init, s_init, moving_sum), jnp.arange(1, N + future)
        )
    if future > 0:
        numpyro.deterministic("y_forecast", ys[-future:])


if __name__ == "__main__":
    data = 1000.0 + 900.0 * np.sin(np.arange(114) * 2 * np.pi / 9.6) ** 2
    y_train = jnp.array(data[:80], dtype=jnp.float32)
    kernel = NUTS(sgt)
    mcmc = MCMC(kernel, num_warmup=2, num_samples=2, num_chains=1, jit_model_args=True,
                progress_bar=False)
    mcmc.run(random.PRNGKey(0), y_train, seasonality=38)
