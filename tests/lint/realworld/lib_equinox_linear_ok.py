# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/equinox/nn/_linear.py
#   (Linear, equinox 0.13.8 as released; docstrings shortened, the private helpers
#   default_floating_dtype/default_init and the named_scope decorator replaced by their
#   plain JAX equivalents)
# observed on jax 0.10.2 CPU: runs clean under eqx.filter_jit and jax.vmap: the branches
#   are on static fields ("scalar" strings, None bias) and on jnp.shape.
# gap: types
import math
from typing import Literal

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jrandom
from equinox import Module, field
from jaxtyping import Array, PRNGKeyArray


class Linear(Module):
    """Performs a linear transformation."""

    weight: Array
    bias: Array | None
    in_features: int | Literal["scalar"] = field(static=True)
    out_features: int | Literal["scalar"] = field(static=True)
    use_bias: bool = field(static=True)

    def __init__(
        self,
        in_features: int | Literal["scalar"],
        out_features: int | Literal["scalar"],
        use_bias: bool = True,
        dtype=None,
        *,
        key: PRNGKeyArray,
    ):
        dtype = jnp.float32 if dtype is None else dtype
        wkey, bkey = jrandom.split(key, 2)
        in_features_ = 1 if in_features == "scalar" else in_features
        out_features_ = 1 if out_features == "scalar" else out_features
        if in_features_ == 0:
            lim = 1.0
        else:
            lim = 1 / math.sqrt(in_features_)
        wshape = (out_features_, in_features_)
        self.weight = jrandom.uniform(wkey, wshape, dtype, -lim, lim)
        bshape = (out_features_,)
        self.bias = jrandom.uniform(bkey, bshape, dtype, -lim, lim) if use_bias else None
        self.in_features = in_features
        self.out_features = out_features
        self.use_bias = use_bias

    def __call__(self, x: Array, *, key: PRNGKeyArray | None = None) -> Array:
        if self.in_features == "scalar":
            if jnp.shape(x) != ():
                raise ValueError("x must have scalar shape")
            x = jnp.broadcast_to(x, (1,))
        x = self.weight @ x
        if self.bias is not None:
            x = x + self.bias
        if self.out_features == "scalar":
            assert jnp.shape(x) == (1,)
            x = jnp.squeeze(x)
        return x


if __name__ == "__main__":
    key = jrandom.PRNGKey(0)
    layer = Linear(3, "scalar", key=key)
    print(eqx.filter_jit(lambda m, x: m(x))(layer, jnp.ones(3)))
    scalar_in = Linear("scalar", 2, use_bias=False, key=key)  # tolerate: JIT502
    print(eqx.filter_jit(lambda m, x: jax.vmap(m)(x))(scalar_in, jnp.arange(4.0)))
