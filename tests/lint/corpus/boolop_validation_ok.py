"""Boolean logic on static facts inside traced code."""

import jax
import jax.numpy as jnp


@jax.jit
def conv_out(x, w, b=None):
    assert x.ndim == 4 and w.ndim == 4, "NHWC input and HWIO kernel"
    use_bias = b is not None and b.shape[-1] == w.shape[-1]
    squeeze = not (x.shape[0] > 1)
    y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    if use_bias:
        y = y + b
    if squeeze or x.dtype != jnp.float32:
        y = y.astype(jnp.float32)
    return y


@jax.jit
def finite_or_zero(x):
    ok = jnp.isfinite(x) & (x != 0)
    return jnp.where(ok, x, 0.0), jnp.logical_not(ok).sum()
