# source: https://github.com/Qazalbash/jaxampler/blob/0f6db7f5dbceb8384692dda54d051ca7f29a19d6/models/utils/distribution.py
#   (Distribution verbatim, and Uniform from models/utils/uniform.py at the same commit
#   "random key generation", which calls the jitted get_key for its draws; reported as
#   https://github.com/Qazalbash/jaxampler/issues/5 "Seeding the time value is not
#   effective", fixed in 6b962e8 by a non-jitted key generator)
# observed on jax 0.10.2 CPU: get_key is jitted with self static, so time() runs once, at
#   trace time: every later call returns the same key, and rvs draws the same numbers a
#   second later.
# gap: other
from functools import partial
from time import time

import jax
from jax import Array
from jax import numpy as jnp
from jax.typing import ArrayLike


class Distribution(object):

    def __init__(self, name: str = None) -> None:
        self._logZ = None
        self._name = None if name is None else name

    def check_params(self) -> None:
        raise NotImplementedError

    def logZ(self) -> ArrayLike:
        raise NotImplementedError

    @partial(jax.jit, static_argnums=(0,))
    def Z(self) -> ArrayLike:
        return jnp.exp(self._logZ)

    def logpdf(self, x: ArrayLike) -> ArrayLike:
        raise NotImplementedError

    @partial(jax.jit, static_argnums=(0,))
    def pdf(self, x: ArrayLike) -> ArrayLike:
        return jnp.exp(self.logpdf(x))

    def logcdf(self, x: ArrayLike) -> ArrayLike:
        raise NotImplementedError

    @partial(jax.jit, static_argnums=(0,))
    def cdf(self, x: ArrayLike) -> ArrayLike:
        return jnp.exp(self.logcdf(x))

    @partial(jax.jit, static_argnums=(0,))
    def cdfinv(self, x: ArrayLike) -> ArrayLike:
        return jnp.exp(self.logcdfinv(x))

    def logcdfinv(self, x: ArrayLike) -> ArrayLike:
        raise NotImplementedError

    def logrvs(self, N: int) -> Array:
        raise NotImplementedError

    def rvs(self, N: int = 1) -> Array:
        return jnp.exp(self.logrvs(N))

    def __str__(self) -> str:
        return self.__repr__()

    @partial(jax.jit, static_argnums=(0,))
    def get_key(self) -> int:
        return jax.random.PRNGKey(int(time()))  # expect: JIT204


class Uniform(Distribution):

    def __init__(self, low: ArrayLike = 0.0, high: ArrayLike = 1.0, name: str = None) -> None:
        self._low = low
        self._high = high
        self.check_params()
        super().__init__(name)

    def check_params(self) -> None:
        assert jnp.all(self._low < self._high), "All low must be less than high"

    @partial(jax.jit, static_argnums=(0,))
    def logpdf(self, x: ArrayLike) -> ArrayLike:
        return jax_uniform.logpdf(x, loc=self._low, scale=self._high - self._low)

    @partial(jax.jit, static_argnums=(0,))
    def logcdf(self, x: ArrayLike) -> ArrayLike:
        logcdf_val = jnp.where((self._low <= x) & (x <= self._high),
                               lax.log(x - self._low) - lax.log(self._high - self._low), -jnp.inf)
        logcdf_val = jnp.where(x <= self._high, logcdf_val, jnp.log(1.0))

        return logcdf_val

    @partial(jax.jit, static_argnums=(0,))
    def pdf(self, x: ArrayLike) -> ArrayLike:
        return jax_uniform.pdf(x, loc=self._low, scale=self._high - self._low)

    def rvs(self, N: int) -> Array:
        return jax.random.uniform(self.get_key(), minval=self._low, maxval=self._high, shape=(N,), dtype=jnp.float32)

    def __repr__(self) -> str:
        string = f"Uniform(low={self._low}, high={self._high}"
        if self._name is not None:
            string += f", name={self._name}"
        return string + ")"


if __name__ == "__main__":
    import time as _time

    u = Uniform(0.0, 1.0)
    first = u.rvs(3)
    _time.sleep(1.1)
    second = u.rvs(3)
    # observed: line 67 reads the clock once: both draws come from the same key
    assert jnp.array_equal(first, second), (first, second)
