# source: https://github.com/pyro-ppl/numpyro/blob/b6e4629f777a3bfef820d49b5b9f8948a2598b2c/numpyro/distributions/util.py
#   (lazy_property before https://github.com/pyro-ppl/numpyro/pull/1843, "avoids setting jax
#   tracer as lazy property attribute", which skips the setattr for tracers)
# observed on jax 0.10.2 CPU: when the property is first read inside jax.jit, __get__ caches
#   the traced value on the instance, which lives outside the trace; after the call the
#   instance holds a leaked tracer. lazy_property is kept as it was; `Truncated`, a
#   stand-in for numpyro's TruncatedDistribution (which caches its tail probability with
#   lazy_property), and the jitted use in __main__ are added.
# gap: stale-state-attributes
from functools import update_wrapper

import jax
import jax.numpy as jnp
from jax.scipy.stats import norm


class lazy_property(object):
    r"""
    Used as a decorator for lazy loading of class attributes. This uses a
    non-data descriptor that calls the wrapped method to compute the property on
    first call; thereafter replacing the wrapped method into an instance
    attribute.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    # This is to prevent warnings from sphinx
    def __call__(self, *args, **kwargs):
        return self.wrapped(*args, **kwargs)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)  # expect: JIT202
        return value


class Truncated:
    def __init__(self, loc, low):
        self.loc = loc
        self.low = low

    @lazy_property
    def _tail_prob_at_low(self):
        return norm.cdf(self.low - self.loc)


prior = Truncated(0.0, 0.0)


@jax.jit
def log_prob(x, loc):
    d = Truncated(loc, prior.low)
    return norm.logpdf(x - d.loc) - jnp.log1p(-prior._tail_prob_at_low)


if __name__ == "__main__":
    log_prob(1.0, 0.0)
    # observed: line 37 leaves a tracer cached on the module-level `prior`
    assert isinstance(prior.__dict__["_tail_prob_at_low"], jax.core.Tracer)
