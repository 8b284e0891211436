# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/distributions/discrete.py
#   (class Poisson; its sparse log_prob came with pyro-ppl/numpyro#1003)
# observed on jax 0.10.2 CPU (numpyro 0.22.0 for the base class and helpers): runs clean;
#   the boolean-mask path of the sparse log_prob runs only when `value` is not a tracer,
#   so under jax.jit the dense formula is used and both agree. Added: the imports of the
#   base class and helpers from numpyro, and the __main__ block.
# gap: exemption-vs-JAX
from typing import Optional

import numpy as np

import jax
from jax import lax
import jax.numpy as jnp
import jax.random as random
from jax.scipy.special import gammaincc, gammaln, xlogy
from jax.typing import ArrayLike
from jax import Array

from numpyro.distributions import constraints
from numpyro.distributions.distribution import Distribution
from numpyro.distributions.util import validate_sample
from numpyro.util import is_prng_key, not_jax_tracer


class Poisson(Distribution):
    r"""
    Creates a Poisson distribution parameterized by rate, the rate parameter.

    Samples are nonnegative integers, with a pmf given by

    .. math::
      \mathrm{rate}^k \frac{e^{-\mathrm{rate}}}{k!}

    :param numpy.ndarray rate: The rate parameter
    :param bool is_sparse: Whether to assume value is mostly zero when computing
        :meth:`log_prob`, which can speed up computation when data is sparse.
    """

    arg_constraints = {"rate": constraints.greater_than_eq(0.0)}
    support = constraints.nonnegative_integer
    pytree_aux_fields = ("is_sparse",)

    def __init__(
        self,
        rate: ArrayLike,
        *,
        is_sparse: bool = False,
        validate_args: Optional[bool] = None,
    ):
        self.rate = rate
        self.is_sparse = is_sparse
        super(Poisson, self).__init__(jnp.shape(rate), validate_args=validate_args)

    def sample(
        self, key: Optional[jax.Array], sample_shape: tuple[int, ...] = ()
    ) -> Array:
        assert is_prng_key(key)
        assert key is not None
        return random.poisson(key, self.rate, shape=sample_shape + self.batch_shape)

    @validate_sample
    def log_prob(self, value: ArrayLike) -> Array:
        # Using an integer vs. floating-point `rate` leads to differing results.
        # To ensure consistent behavior, `rate` is explicitly cast to a floating-point type.
        # See: https://github.com/pyro-ppl/numpyro/issues/2181
        ftype = jnp.result_type(float)
        rate = jnp.astype(self.rate, ftype)

        if self.is_sparse and not_jax_tracer(value) and jnp.size(value) > 1:
            shape = lax.broadcast_shapes(self.batch_shape, jnp.shape(value))
            rate = jnp.broadcast_to(rate, shape).reshape(-1)
            nonzero = np.broadcast_to(jax.device_get(value) > 0, shape).reshape(-1)
            value = jnp.broadcast_to(value, shape).reshape(-1)
            sparse_value = value[nonzero]
            sparse_rate = rate[nonzero]
            return (
                jnp.asarray(-rate, dtype=ftype)
                .at[nonzero]
                .add(
                    jnp.log(sparse_rate) * sparse_value - gammaln(sparse_value + 1),
                )
                .reshape(shape)
            )
        _value = jnp.astype(value, ftype)
        return xlogy(_value, rate) - gammaln(_value + 1.0) - rate

    @property
    def mean(self) -> Array:
        return jnp.asarray(self.rate)

    @property
    def variance(self) -> Array:
        return jnp.asarray(self.rate)

    def cdf(self, value: ArrayLike) -> Array:
        k = jnp.floor(value) + 1
        return gammaincc(k, self.rate)



if __name__ == "__main__":
    rate = jnp.array([0.5, 2.0, 1.0, 3.0])
    value = jnp.array([0.0, 3.0, 0.0, 1.0])
    eager = Poisson(rate, is_sparse=True).log_prob(value)
    jitted = jax.jit(lambda v: Poisson(rate, is_sparse=True).log_prob(v))(value)
    assert jnp.allclose(eager, jitted), (eager, jitted)
    print(jitted)
