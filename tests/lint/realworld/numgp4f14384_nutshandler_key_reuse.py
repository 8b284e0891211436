# source: https://github.com/sagar87/numgp/blob/4f14384b24e5da5d6915f80fef385fed8ac1036b/numgp/handler.py
# observed on jax 0.10.2 CPU: NutsHandler splits its seed once in __init__ and then feeds the same self.rng_key_ to the prior predictive, to MCMC.run and to the posterior predictive; the key is never advanced, so every consumer gets the identical key bits
# gap: stale-state-attributes
# (the Handler base class and NutsHandler kept as written; SVIHandler and NutsHandler.dump/from_dump
#  (which use an un-imported dill) left out; `from jax.numpy import DeviceArray` replaced by jax.Array;
#  unused imports (lax, jit, pandas, optim, SVI, Trace_ELBO) dropped; a small regression model, data,
#  tiny MCMC sizes and the __main__ block that records the key each consumer receives are added;
#  MCMC(self.kernel, num_warmup, num_samples, ...) now needs num_warmup=/num_samples= as keywords)
from functools import lru_cache
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import numpyro as npy
import numpyro.distributions as dist
from jax import random
from numpyro.diagnostics import hpdi
from numpyro.infer import MCMC, NUTS, Predictive

Model = Callable[[jax.Array], jax.Array]
Guide = Callable[[jax.Array], None]


class Handler(object):
    def __init__(self):
        pass

    def _select(self, which):
        assert which in [
            "prior",
            "posterior",
            "posterior_predictive",
        ], "Please select from 'prior', 'posterior' or 'posterior_predictive'."
        assert hasattr(self, which), f"NutsHandler did not compute the {which} yet."
        return getattr(self, which)

    def mean(self, param, which="posterior"):
        return self._select(which)[param].mean(0)

    @lru_cache(maxsize=128)
    def hpdi(self, param, which="posterior", *args, **kwargs):
        return hpdi(self._select(which)[param], *args, **kwargs)


class NutsHandler(Handler):
    def __init__(
        self,
        model,
        posterior=None,
        num_warmup=2000,
        num_samples=10000,
        num_chains=1,
        key=0,
        *args,
        **kwargs,
    ):
        self.model = model
        self.rng_key, self.rng_key_ = random.split(random.PRNGKey(key))

        if posterior is not None:
            self.mcmc = posterior
            self.posterior = self.mcmc.get_samples()
        else:
            self.kernel = NUTS(model, **kwargs)
            self.mcmc = MCMC(
                self.kernel, num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains
            )

    def _select(self, which):
        assert which in [
            "prior",
            "posterior",
            "posterior_predictive",
        ], "Please select from 'prior', 'posterior' or 'posterior_predictive'."
        assert hasattr(self, which), f"NutsHandler did not compute the {which} yet."
        return getattr(self, which)

    def get_prior(self, *args, **kwargs):
        predictive = Predictive(self.model, num_samples=self.mcmc.num_samples)
        self.prior = predictive(self.rng_key_, *args, **kwargs)

    def get_posterior_predictive(self, *args, **kwargs):
        predictive = Predictive(self.model, self.posterior, **kwargs)
        self.posterior_predictive = predictive(self.rng_key_, *args)  # expect: JIT502

    def fit(self, *args, **kwargs):
        self.mcmc.run(self.rng_key_, *args, **kwargs)  # expect: JIT502
        self.posterior = self.mcmc.get_samples()

    def summary(self, *args, **kwargs):
        self.mcmc.print_summary(*args, **kwargs)


def model(x, y=None):
    a = npy.sample("a", dist.Normal(0.0, 1.0))
    s = npy.sample("s", dist.HalfNormal(1.0))
    npy.sample("y", dist.Normal(a * x, s), obs=y)


if __name__ == "__main__":
    import traceback

    seen = []  # (line of the user's call, key bits)

    def caller_line():
        for fr in reversed(traceback.extract_stack()[:-2]):
            if fr.filename == __file__:
                return fr.lineno
        return None

    orig_pred_call = Predictive.__call__
    orig_run = MCMC.run

    def pred_call(self, rng_key, *a, **k):
        seen.append((caller_line(), np.asarray(random.key_data(rng_key)).tolist()))
        return orig_pred_call(self, rng_key, *a, **k)

    def run(self, rng_key, *a, **k):
        seen.append((caller_line(), np.asarray(random.key_data(rng_key)).tolist()))
        return orig_run(self, rng_key, *a, **k)

    Predictive.__call__ = pred_call
    MCMC.run = run

    x = jnp.linspace(0.0, 1.0, 8)
    y = 2.0 * x + 0.1

    handler = NutsHandler(model, num_warmup=50, num_samples=50)
    handler.get_prior(x)
    handler.fit(x, y=y)
    handler.get_posterior_predictive(x)

    lines = [ln for ln, _ in seen]
    keys = [k for _, k in seen]
    print(seen)
    assert lines == [81, 88, 85], lines
    # the prior draw, the MCMC run and the posterior predictive all consume the same key
    assert keys[0] == keys[1] == keys[2]
    print("MCMC.run and the posterior predictive reuse the prior predictive's key")

# observed: line 88 MCMC.run receives the same key bits that the prior predictive in get_prior already consumed
# observed: line 85 the posterior predictive receives that same key a third time
