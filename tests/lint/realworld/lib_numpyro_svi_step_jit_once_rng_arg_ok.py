# source: https://github.com/pyro-ppl/numpyro/blob/0eb0636649a8475e0429ac808bb4f3e9ff7ea182/numpyro/svi.py
#   (SVI after commit 0eb06366, "jit minipyro example", the fix of
#   https://github.com/pyro-ppl/numpyro/issues/2)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `step` jits `jit_fn` once and caches it,
#   and the model and guide are seeded inside the trace with a key that `step` splits and
#   passes in at every call: later steps do not compile again and two steps from the same
#   state draw different noise. The elbo and the example's model, guide, data and loop are
#   from the same commit (numpyro/svi.py, numpyro/examples/minipyro.py). Current spellings:
#   `jax.experimental.optimizers` is `jax.example_libraries.optimizers`, whose module-level
#   `get_params` is gone (a stand-in class gives it, from adam's `params_fn`);
#   `dist.norm(...)` is `dist.Normal(...)`, `.logpdf` is `.log_prob`, `sample`/`param` are
#   `numpyro.sample`/`numpyro.param`, and the `seed`, `trace`, `replay`, `substitute`
#   handlers are numpyro's current ones. JAX's key-reuse checker names line 72 (tolerated): init_state seeded from self.rng, splitting it.
# gap: per-call-recompile
from jax import grad, random, jit
import jax.numpy as np
from jax.random import PRNGKey
from jax.example_libraries import optimizers as _example_optimizers

import numpyro
import numpyro.distributions as dist
from numpyro.handlers import replay, trace, substitute, seed


class optimizers:  # stand-in for the removed jax.experimental.optimizers module
    adam = staticmethod(_example_optimizers.adam)
    get_params = staticmethod(_example_optimizers.adam(0.0).params_fn)


# This is a unified interface for stochastic variational inference in Pyro.
# The actual construction of the loss is taken care of by `loss`.
# See http://docs.pyro.ai/en/0.3.0-release/inference_algos.html
class SVI(object):
    def __init__(self, model, guide, opt_init, opt_update, loss, rng=PRNGKey(0)):
        self.model = model
        self.guide = guide
        self.opt_init = opt_init
        self.opt_update = opt_update
        self.loss = loss
        self.rng = rng
        self._jitted_fn = None

    def init_state(self, *args, **kwargs):
        model, guide = self._seed(self.rng)
        guide_trace = trace(guide).get_trace(*args, **kwargs)
        model_trace = trace(model).get_trace(*args, **kwargs)
        params = {}
        for site in list(guide_trace.values()) + list(model_trace.values()):
            if site['type'] == 'param':
                params[site['name']] = site['value']
        return self.opt_init(params)

    def _seed(self, rng):
        model = seed(self.model, rng)
        _, subkey = random.split(rng)
        guide = seed(self.guide, subkey)
        return model, guide

    def step(self, i, *args, **kwargs):
        def jit_fn(i, opt_state, rng, args, kwargs):
            model, guide = self._seed(rng)
            params = optimizers.get_params(opt_state)
            loss = self.loss(params, model, guide, args, kwargs)
            grads = grad(self.loss)(params, model, guide, args, kwargs)
            opt_state = self.opt_update(i, grads, opt_state)
            return loss, opt_state
        opt_state = kwargs.pop('opt_state')
        if opt_state is None:
            opt_state = self.init_state(*args, **kwargs)
        if not self._jitted_fn:
            self._jitted_fn = jit(jit_fn)
        _, self.rng = random.split(self.rng)  # tolerate: JIT502
        return self._jitted_fn(i, opt_state, self.rng, args, kwargs)


# This is a basic implementation of the Evidence Lower Bound, which is the
# fundamental objective in Variational Inference.
def elbo(param_map, model, guide, args, kwargs):
    model = substitute(model, param_map)
    guide = substitute(guide, param_map)
    guide_trace = trace(guide).get_trace(*args, **kwargs)
    model_trace = trace(replay(model, guide_trace)).get_trace(*args, **kwargs)
    elbo = 0.
    for site in model_trace.values():
        if site["type"] == "sample":
            elbo = elbo + np.sum(site["fn"].log_prob(site["value"]))
    for site in guide_trace.values():
        if site["type"] == "sample":
            elbo = elbo - np.sum(site["fn"].log_prob(site["value"]))
    return -elbo


def model(data):
    loc = numpyro.sample("loc", dist.Normal(0., 1.))
    numpyro.sample("obs", dist.Normal(loc, 1.), obs=data)


def guide(data):
    guide_loc = numpyro.param("guide_loc", 0.)
    guide_scale = np.exp(numpyro.param("guide_scale_log", 0.))
    numpyro.sample("loc", dist.Normal(guide_loc, guide_scale))


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    data = random.normal(PRNGKey(0), shape=(100,)) + 3.0
    opt_init, opt_update, _ = optimizers.adam(0.02)
    svi = SVI(model, guide, opt_init, opt_update, elbo)
    opt_state = None
    for i in range(3):  # the first states hold weakly typed Python floats
        loss, opt_state = svi.step(i, data, opt_state=opt_state)
    before = len(compiles)
    for i in range(3, 6):
        loss, opt_state = svi.step(i, data, opt_state=opt_state)
    assert len(compiles) == before, len(compiles) - before
    loss_a, _ = svi.step(6, data, opt_state=opt_state)
    loss_b, _ = svi.step(6, data, opt_state=opt_state)
    assert float(loss_a) != float(loss_b), (loss_a, loss_b)
    for i in range(7, 300):
        loss, opt_state = svi.step(i, data, opt_state=opt_state)
    params = optimizers.get_params(opt_state)
    assert abs(params["guide_loc"] - 3.0) < 0.3, params
