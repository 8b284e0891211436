# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/diffrax/_misc.py
#   (_fill_forward, fill_forward, linear_rescale, left_broadcast_to, static_select;
#   diffrax 0.7.2 as released; jaxtyping annotations and docstrings shortened)
# observed on jax 0.10.2 CPU: runs clean under jit; static_select only branches when the
#   predicate is a Python or NumPy value.
# gap: exemption-vs-JAX
from typing import cast

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jaxtyping import Array


def _fill_forward(last_observed_yi, yi):
    yi = jnp.where(jnp.isnan(yi), last_observed_yi, yi)
    return yi, yi


@jax.jit
def fill_forward(ys, replace_nans_at_start=None):
    """Fill-forwards over missing data (represented as NaN)."""

    if replace_nans_at_start is None:
        y0 = ys[0]
    else:
        y0 = jnp.broadcast_to(replace_nans_at_start, ys[0].shape)
    _, ys = lax.scan(_fill_forward, y0, ys)
    return ys


def linear_rescale(t0, t, t1) -> Array:
    """Calculates (t - t0) / (t1 - t0), assuming t0 <= t <= t1."""

    cond = t0 == t1
    numerator = cast(Array, jnp.where(cond, 0, t - t0))
    denominator = cast(Array, jnp.where(cond, 1, t1 - t0))
    return numerator / denominator


def left_broadcast_to(arr, shape):
    """As `jax.numpy.broadcast_to`, except that `arr` is lined up with the left-hand
    edge of `shape`, rather than the right-hand edge.
    """

    indices = tuple(slice(None) if i < arr.ndim else None for i in range(len(shape)))
    return jnp.broadcast_to(arr[indices], shape)


def static_select(pred, a, b):
    # This is mostly useful in that it doesn't promote `a` or `b` to Arrays when the
    # predicate is statically known.
    # This in turn allows us to perform some trace-time optimisations that XLA isn't
    # smart enough to do on its own.
    if isinstance(pred, (np.ndarray, np.generic)) and pred.shape == ():
        pred = pred.item()
    if pred is True:
        return a
    elif pred is False:
        return b
    elif a is b:
        return a
    else:
        return lax.select(pred, a, b)


if __name__ == "__main__":
    ys = jnp.array([[1.0], [jnp.nan], [3.0]])
    print(fill_forward(ys), fill_forward(ys, jnp.zeros(1)))
    print(jax.jit(linear_rescale)(0.0, 0.5, 1.0))
    print(jax.jit(left_broadcast_to, static_argnums=1)(jnp.ones(2), (2, 3)))
    print(jax.jit(static_select)(jnp.bool_(True), 1.0, 2.0))
    print(jax.jit(lambda a, b: static_select(np.bool_(False), a, b))(1.0, 2.0))
