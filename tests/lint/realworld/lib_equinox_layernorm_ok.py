# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/equinox/nn/_normalisation.py
#   (LayerNorm, equinox 0.13.8 as released; docstrings shortened, the @overload stubs, the
#   named_scope decorator and the deprecated `elementwise_affine` argument left out, and
#   `sentinel` from equinox's internals replaced by a module-level object)
# observed on jax 0.10.2 CPU: runs clean under eqx.filter_jit and under jax.vmap: the `if`
#   tests read x.shape and static fields (use_weight, use_bias) and compare `state` with a
#   sentinel by identity, all Python values while tracing.
# gap: exemption-vs-JAX
from collections.abc import Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
from equinox import field, Module
from jaxtyping import Array, Float, PRNGKeyArray

State = eqx.nn.State
sentinel = object()


class LayerNorm(Module):
    r"""Computes a mean and standard deviation over the whole input array."""

    shape: tuple[int, ...] = field(static=True)
    eps: float = field(static=True)
    use_weight: bool = field(static=True)
    use_bias: bool = field(static=True)
    weight: Float[Array, "*shape"] | None
    bias: Float[Array, "*shape"] | None

    def __init__(
        self,
        shape: int | Sequence[int],
        eps: float = 1e-5,
        use_weight: bool = True,
        use_bias: bool = True,
        dtype=None,
    ):
        if isinstance(shape, int):
            shape = (shape,)
        else:
            shape = tuple(shape)
        self.shape = shape
        self.eps = eps
        self.use_weight = use_weight
        self.use_bias = use_bias
        self.weight = jnp.ones(shape, dtype=dtype) if use_weight else None
        self.bias = jnp.zeros(shape, dtype=dtype) if use_bias else None

    def __call__(
        self,
        x: Float[Array, "*shape"],
        state: State = sentinel,
        *,
        key: PRNGKeyArray | None = None,
    ) -> Array | tuple[Array, State]:
        if x.shape != self.shape:
            raise ValueError(
                "`LayerNorm(shape)(x)` must satisfy the invariant `shape == x.shape`"
                f"Received `shape={self.shape} and `x.shape={x.shape}`. You might need "
                "to replace `layer_norm(x)` with `jax.vmap(layer_norm)(x)`."
            )
        orig_dtype = x.dtype
        with jax.numpy_dtype_promotion("standard"):
            dtype = jnp.result_type(x.dtype, jnp.float32)

        x = x.astype(dtype)
        mean = jnp.mean(x, keepdims=True)
        variance = jnp.var(x, keepdims=True)
        variance = jnp.maximum(0.0, variance)
        inv = jax.lax.rsqrt(variance + self.eps)
        out = (x - mean) * inv
        if self.use_weight:
            out = self.weight.astype(dtype) * out  # pyright: ignore
        if self.use_bias:
            out = out + self.bias.astype(dtype)  # pyright: ignore
        if state is sentinel:
            return out.astype(orig_dtype)
        else:
            return out.astype(orig_dtype), state


if __name__ == "__main__":
    layer = LayerNorm(4)
    out = eqx.filter_jit(lambda m, x: jax.vmap(m)(x))(layer, jnp.arange(8.0).reshape(2, 4))
    assert jnp.allclose(out.mean(axis=-1), 0.0, atol=1e-5)
    no_affine = LayerNorm(4, use_weight=False, use_bias=False)
    assert eqx.filter_jit(no_affine)(jnp.arange(4.0)).shape == (4,)
