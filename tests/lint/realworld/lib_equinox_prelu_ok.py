# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/equinox/nn/_activations.py
#   (PReLU, equinox 0.13.8 as released; docstrings shortened, the named_scope decorator
#   left out)
# observed on jax 0.10.2 CPU: runs clean under eqx.filter_jit and eqx.filter_grad: the
#   sign test is jnp.where, not a Python branch.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import equinox as eqx
from jaxtyping import Array
from equinox import Module


class PReLU(Module):
    """PReLU activation function."""

    negative_slope: Array

    def __init__(
        self,
        init_alpha: float | Array | None = 0.25,
    ):
        self.negative_slope = jnp.asarray(init_alpha)

    def __call__(self, x: Array) -> Array:
        with jax.numpy_dtype_promotion("standard"), jax.numpy_rank_promotion("allow"):
            return jnp.where(x >= 0, x, self.negative_slope * x)


if __name__ == "__main__":
    act = PReLU()
    x = jnp.array([-2.0, 0.0, 3.0])
    assert jnp.allclose(eqx.filter_jit(lambda m, v: m(v))(act, x), jnp.array([-0.5, 0.0, 3.0]))
    g = eqx.filter_grad(lambda m, v: m(v).sum())(act, x)
    assert jnp.allclose(g.negative_slope, -2.0)
