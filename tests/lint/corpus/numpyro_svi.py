"""SVI on a small Bayesian regression (numpyro user style)."""

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import SVI, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal

prior_scale = 1.0


def model(x, y=None):
    d = x.shape[-1]
    w = numpyro.sample("w", dist.Normal(0.0, prior_scale).expand([d]).to_event(1))
    b = numpyro.sample("b", dist.Normal(0.0, 1.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    mean = x @ w + b
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("y", dist.Normal(mean, sigma), obs=y)


@jax.jit
def posterior_predictive_mean(w_samples, b_samples, x):
    preds = x @ w_samples.T + b_samples
    return preds.mean(axis=-1), np.percentile(preds, [5, 95], axis=-1)  # expect: JIT402


def fit(x, y, steps=2000):
    guide = AutoNormal(model)
    svi = SVI(model, guide, numpyro.optim.Adam(0.01), Trace_ELBO())
    state = svi.init(jax.random.PRNGKey(0), x, y)
    update = jax.jit(svi.update)
    losses = []
    for i in range(steps):
        state, loss = update(state, x, y)
        losses.append(loss)
        if i % 500 == 0:
            print(i, loss)
    return svi.get_params(state), np.asarray(losses)


def sweep_priors(x, y, scales):
    global prior_scale
    results = {}
    for s in scales:
        prior_scale = s
        params, losses = fit(x, y, steps=200)
        results[s] = losses[-1]
    return results
