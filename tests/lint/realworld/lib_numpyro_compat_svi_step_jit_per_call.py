# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/compat/infer.py
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `SVI.step` of numpyro's Pyro-compatible
#   API wraps `jit(self.update)` and `jit(super(SVI, self).get_params)` anew on every step.
#   A bound method is a fresh object at each access, so each step traces (and compiles)
#   both again: four steps give four traces of `update` and four of `get_params`. The class
#   is copied from the library (the SVI class only, with its imports); the __main__ block
#   (a one-site model, an AutoNormal guide, a counter of traces through jax.monitoring) is
#   added.
# gap: per-call-recompile
from jax import jit

import numpyro
from numpyro.compat.pyro import get_param_store
from numpyro.infer import svi


class SVI(svi.SVI):
    def __init__(
        self,
        model,
        guide,
        optim,
        loss,
        loss_and_grads=None,
        num_samples=10,
        num_steps=0,
        **kwargs,
    ):
        super(SVI, self).__init__(model=model, guide=guide, optim=optim, loss=loss)
        self.svi_state = None

    def evaluate_loss(self, *args, **kwargs):
        return self.evaluate(self.svi_state, *args, **kwargs)

    def step(self, *args, rng_key=None, **kwargs):
        if self.svi_state is None:
            if rng_key is None:
                rng_key = numpyro.prng_key()
            self.svi_state = self.init(rng_key, *args, **kwargs)
        try:
            self.svi_state, loss = jit(self.update)(self.svi_state, *args, **kwargs)  # expect: JIT301
        except TypeError as e:
            if "not a valid JAX type" in str(e):
                raise TypeError(
                    "NumPyro backend requires args, kwargs to be arrays or tuples, "
                    "dicts of arrays."
                ) from e
            else:
                raise e
        params = jit(super(SVI, self).get_params)(self.svi_state)  # expect: JIT301
        get_param_store().update(params)
        return loss

    def get_params(self):
        return super(SVI, self).get_params(self.svi_state)


if __name__ == "__main__":
    import warnings

    import jax
    import jax.numpy as jnp
    import numpyro.distributions as dist
    from numpyro.infer import Trace_ELBO
    from numpyro.infer.autoguide import AutoNormal
    from numpyro.optim import Adam

    warnings.simplefilter("ignore")
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: traces.append(kw.get("fun_name"))
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )

    def model(x):
        m = numpyro.sample("m", dist.Normal(0.0, 1.0))
        numpyro.sample("x", dist.Normal(m, 1.0), obs=x)

    x = jnp.ones(5)
    svi_obj = SVI(model, AutoNormal(model), Adam(0.01), Trace_ELBO())
    for _ in range(4):
        svi_obj.step(x, rng_key=jax.random.PRNGKey(0))
    # observed: line 41 traces `update` again at every step
    assert traces.count("update") == 4, traces
    # observed: line 50 traces `get_params` again at every step
    assert traces.count("get_params") == 4, traces
