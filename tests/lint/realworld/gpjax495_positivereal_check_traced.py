# source: https://github.com/thomaspinder/GPJax/issues/495 (reporter's script; the failing check is GPJax v0.9.3 gpjax/parameters.py, https://github.com/JaxGaussianProcesses/GPJax/blob/v0.9.3/gpjax/parameters.py)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if jnp.any(value < 0)` in _check_is_positive while tracing get_kernel_gram_func for jit
# gap: other
# Added: the Parameter/PositiveReal classes and the value checks copied (trimmed) from
# gpjax/parameters.py at v0.9.3, and a small stand-in for gpx.kernels.RBF (its __init__
# wraps lengthscale/variance in PositiveReal as in gpjax/kernels/stationary/base.py v0.9.3;
# gram() builds the dense matrix instead of a cola operator, so `.to_dense()` is dropped).
# Changed: _check_is_arraylike also accepts jax.Array, because under jax 0.10.2 a tracer is
# no longer an instance of jax.typing.ArrayLike (the check passed on the jax of the report);
# Parameter derives from a small stand-in for flax's nnx.Variable (flax 0.12 refuses
# `self._tag = tag` on an nnx.Variable).
import typing as tp

import jax
import jax.numpy as jnp
from jax import jit
from jax.typing import ArrayLike

T = tp.TypeVar("T", bound=tp.Union[ArrayLike, list[float]])
ParameterTag = str


class _Variable(tp.Generic[T]):
    # stand-in for flax.nnx.Variable
    def __init__(self, value, **kwargs):
        self.value = value


class Parameter(_Variable[T]):
    """Parameter base class.

    All trainable parameters in GPJax should inherit from this class.

    """

    def __init__(self, value: T, tag: ParameterTag, **kwargs):
        _check_is_arraylike(value)

        super().__init__(value=jnp.asarray(value), **kwargs)
        self._tag = tag


class PositiveReal(Parameter[T]):
    """Parameter that is strictly positive."""

    def __init__(self, value: T, tag: ParameterTag = "positive", **kwargs):
        super().__init__(value=value, tag=tag, **kwargs)

        _check_is_positive(self.value)


def _check_is_arraylike(value: T):
    if not isinstance(value, (jax.Array, ArrayLike, list)):
        raise TypeError(
            f"Expected parameter value to be an array-like type. Got {value}."
        )


def _check_is_positive(value: T):
    if jnp.any(value < 0):  # expect: JIT101
        raise ValueError(
            f"Expected parameter value to be strictly positive. Got {value}."
        )


class RBF:
    # stand-in for gpx.kernels.RBF (v0.9.3)
    def __init__(self, active_dims=None, lengthscale=1.0, variance=1.0):
        self.active_dims = active_dims
        self.lengthscale = PositiveReal(lengthscale)
        self.variance = PositiveReal(variance)

    def __call__(self, x, y):
        x = x[..., self.active_dims] / self.lengthscale.value
        y = y[..., self.active_dims] / self.lengthscale.value
        K = self.variance.value * jnp.exp(-0.5 * jnp.sum((x - y) ** 2))
        return K.squeeze()

    def gram(self, x):
        return jnp.stack([jnp.stack([self(a, b) for b in x]) for a in x])


x = jnp.array([[1.0], [2.0], [3.0]])

def get_kernel_gram_func(lengthscale):
    k = RBF(active_dims=[0], lengthscale=lengthscale, variance=jnp.array(1.0))
    return k.gram(x)

kgf_jit = jit(get_kernel_gram_func)

if __name__ == "__main__":
    l = jnp.array([3.0])
    print(kgf_jit(l))
