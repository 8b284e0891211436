# source: https://github.com/pyro-ppl/numpyro/blob/8c5a224976deef868afea72a3339d1c3cdbed1ab/numpyro/distributions/distribution.py
# observed on jax 0.10.2 CPU: `Distribution._validate_sample` as it was before pull 775 (which
#   fixed issue 771, "Omnistaging does not work when enabling distributions' validation")
#   raises TracerBoolConversionError at `if not jnp.all(mask):` when `log_prob` of a
#   distribution with `validate_args=True` runs under jit on an observed NumPy value: the mask
#   is concrete, so the `not_jax_tracer` guard lets it through, but `jnp.all` of it is a tracer
#   under jit. The `validate_sample` decorator is from numpyro/distributions/util.py,
#   `_GreaterThan`/`positive` from constraints.py and `Exponential` from continuous.py of the
#   same commit; `Distribution.__init__` is reduced to storing its shapes and `validate_args`
#   (its parameter check is left out), and the jitted call in __main__ is added.
# gap: omnistaging
import warnings

import numpy as np
import jax
import jax.numpy as jnp

from numpyro.util import not_jax_tracer


def validate_sample(log_prob_fn):
    def wrapper(self, *args, **kwargs):
        log_prob = log_prob_fn(self, *args, *kwargs)
        if self._validate_args:
            value = kwargs['value'] if 'value' in kwargs else args[0]
            mask = self._validate_sample(value)
            log_prob = jnp.where(mask, log_prob, -jnp.inf)
        return log_prob

    return wrapper


class Constraint(object):
    def __call__(self, x):
        raise NotImplementedError


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def __call__(self, x):
        return x > self.lower_bound


positive = _GreaterThan(0.)


class Distribution(object):
    arg_constraints = {}
    support = None
    _validate_args = False

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args

    def _validate_sample(self, value):
        mask = self.support(value)
        if not_jax_tracer(mask):
            if not jnp.all(mask):  # expect: JIT101
                warnings.warn('Out-of-support values provided to log prob method. '
                              'The value argument should be within the support.')
        return mask


class Exponential(Distribution):
    reparametrized_params = ['rate']
    arg_constraints = {'rate': positive}
    support = positive

    def __init__(self, rate=1., validate_args=None):
        self.rate = rate
        super(Exponential, self).__init__(batch_shape=jnp.shape(rate), validate_args=validate_args)

    @validate_sample
    def log_prob(self, value):
        return jnp.log(self.rate) - self.rate * value


if __name__ == "__main__":
    obs = np.array([0.5, 1.0, 2.0])

    def log_likelihood(rate):
        return Exponential(rate, validate_args=True).log_prob(obs).sum()

    print(log_likelihood(1.5))  # eager: fine
    print(jax.jit(log_likelihood)(1.5))  # raises in _validate_sample
