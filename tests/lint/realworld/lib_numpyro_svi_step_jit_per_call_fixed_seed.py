# source: https://github.com/pyro-ppl/numpyro/blob/c4410c8eee358a218aba1ea64c0b2297f5179d8a/numpyro/svi.py
#   (SVI before commit 0eb06366, "jit minipyro example", which fixed
#   https://github.com/pyro-ppl/numpyro/issues/2: "the `jitted` function within `step` is
#   being compiled each time `step` is called. If we pre-compile and cache the function, it
#   is giving static results")
# observed on jax 0.10.2 CPU with numpyro 0.22.0: every `svi.step` compiles a new `jitted`
#   (line 54 makes a fresh function per call), and the model and guide are seeded once, in
#   __init__ (line 39): every step draws the guide's `loc` with that same key, so two steps
#   from the same state return equal losses. The elbo and the example's model, guide, data
#   and loop are from the same commit (numpyro/svi.py, numpyro/examples/minipyro.py).
#   Current spellings: `jax.experimental.optimizers` is `jax.example_libraries.optimizers`,
#   whose module-level `get_params` is gone (a stand-in class gives it, from adam's
#   `params_fn`); `dist.norm(...)` is `dist.Normal(...)`, `.logpdf` is `.log_prob`,
#   `sample`/`param` are `numpyro.sample`/`numpyro.param`, and the `seed`, `trace`,
#   `replay`, `substitute` handlers are numpyro's current ones.
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
    def __init__(self, model, guide, opt_init, opt_update, loss, init_rng=PRNGKey(0)):
        self.model = seed(model, init_rng)
        _, subkey = random.split(init_rng)
        self.guide = seed(guide, subkey)  # expect: JIT502
        self.opt_init = opt_init
        self.opt_update = opt_update
        self.loss = loss

    def init_state(self, *args, **kwargs):
        guide_trace = trace(self.guide).get_trace(*args, **kwargs)
        model_trace = trace(self.model).get_trace(*args, **kwargs)
        params = {}
        for site in list(guide_trace.values()) + list(model_trace.values()):
            if site['type'] == 'param':
                params[site['name']] = site['value']
        return self.opt_init(params)

    def step(self, i, *args, **kwargs):
        @jit  # expect: JIT301
        def jitted(i, opt_state, *args, **kwargs):
            params = optimizers.get_params(opt_state)
            loss = self.loss(params, self.model, self.guide, args, kwargs)
            grads = grad(self.loss)(params, self.model, self.guide, args, kwargs)
            opt_state = self.opt_update(i, grads, opt_state)
            return loss, opt_state
        opt_state = kwargs.pop('opt_state')
        if opt_state is None:
            opt_state = self.init_state(*args, **kwargs)
        return jitted(i, opt_state, *args, **kwargs)


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
    loss, opt_state = svi.step(0, data, opt_state=opt_state)
    before = len(compiles)
    for i in range(1, 4):
        loss, opt_state = svi.step(i, data, opt_state=opt_state)
    # observed: line 54 compiles a new `jitted` at every step (3 steps, 3 compilations)
    assert len(compiles) - before >= 3, compiles
    loss_a, _ = svi.step(4, data, opt_state=opt_state)
    loss_b, _ = svi.step(4, data, opt_state=opt_state)
    # observed: line 39 binds one key to the guide: two steps from the same state draw the
    #   same `loc` and return the same loss
    assert float(loss_a) == float(loss_b), (loss_a, loss_b)
