# source: https://github.com/pyro-ppl/numpyro/issues/566
# observed on jax 0.10.2 CPU: with numpyro 0.22.0, `Predictive(target, ...)(PRNGKey(2), T=10)`
#   raises UnexpectedTracerError ("The function being traced when the value leaked was
#   transition ... traced for scan"): the `numpyro.sample` sites inside the `jax.lax.scan` body
#   run once, while scan traces `transition`, and record their tracers in the effect handlers'
#   trace outside the scan. Run under `trace`, the model records one site `x_JitTracer(int32[])`
#   and one `y_JitTracer(int32[])` (the f-string formats the traced index), each holding a
#   tracer, instead of x_1..x_9 and y_1..y_9. `dist.PRNGIdentity()` is replaced by its current
#   spelling `numpyro.prng_key()`; the imports (`np` is jax.numpy, as `np.append` of the
#   samples needs) and the checks in __main__ are added.
# gap: other
import jax
import jax.numpy as np
from jax.random import PRNGKey
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive


def target(T=10, q=1., r=1., phi=0.5, beta=0.5):

    def transition(state, xs):
        i, key = xs
        key1, key2 = jax.random.split(key)
        x0, mu0 = state
        x1 = numpyro.sample(f'x_{i}', dist.Normal(phi * x0, q), rng_key=key1)  # expect: JIT202
        mu1 = beta * mu0 + x1
        y1 = numpyro.sample(f'y_{i}', dist.Normal(mu1, r), rng_key=key2)  # expect: JIT202
        return (x1, mu1), (x1, y1)

    mu0 = x0 = numpyro.sample('x_0', dist.Normal(0, q))
    y0 = numpyro.sample('y_0', dist.Normal(mu0, r))

    key = numpyro.prng_key()
    _, xy = jax.lax.scan(transition, (x0, mu0), (np.arange(1, T), jax.random.split(key, T-1)))
    x, y = xy
    
    return np.append(x0, x), np.append(y0, y)


if __name__ == "__main__":
    prior = Predictive(target, posterior_samples = {}, num_samples = 10)
    try:
        prior_samples = prior(PRNGKey(2), T=10)
        raise AssertionError("expected UnexpectedTracerError")
    except jax.errors.UnexpectedTracerError as e:
        assert "transition" in str(e) and "traced for scan" in str(e), str(e)[:300]

    with numpyro.handlers.trace() as tr, numpyro.handlers.seed(rng_seed=0):
        target()
    inner = {name: site["value"] for name, site in tr.items() if name not in ("x_0", "y_0")}
    # observed: line 26 records a single site "x_JitTracer(int32[])" whose value is a tracer
    #   of the scan body, escaped into the trace outside it
    assert isinstance(inner.pop("x_JitTracer(int32[])"), jax.core.Tracer)
    # observed: line 28 does the same for "y_JitTracer(int32[])"
    assert isinstance(inner.pop("y_JitTracer(int32[])"), jax.core.Tracer)
    assert not inner, inner
