# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/equinox/nn/_dropout.py
#   (Dropout, equinox 0.13.8 as released; docstrings shortened, the deprecated
#   `deterministic` paths and the named_scope decorator left out)
# observed on jax 0.10.2 CPU: runs clean under eqx.filter_jit and jax.jit: `p` and
#   `inference` are Python values, static to the trace.
# gap: exemption-vs-JAX
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jrandom
from equinox import Module
from jax import lax
from jaxtyping import Array, PRNGKeyArray


class Dropout(Module):
    """Applies dropout."""

    # Not static fields as it makes sense to want to modify them via equinox.tree_at.
    p: float
    inference: bool

    def __init__(self, p: float = 0.5, inference: bool = False):
        self.p = p
        self.inference = inference

    def __call__(
        self,
        x: Array,
        *,
        key: PRNGKeyArray | None = None,
        inference: bool | None = None,
    ) -> Array:
        if inference is None:
            inference = self.inference
        if isinstance(self.p, (int, float)) and self.p == 0:
            inference = True
        if inference:
            return x
        elif key is None:
            raise RuntimeError(
                "Dropout requires a key when running in non-deterministic mode."
            )
        else:
            q = 1 - lax.stop_gradient(self.p)
            mask = jrandom.bernoulli(key, q, x.shape)
            return jnp.where(mask, x / q, 0)


if __name__ == "__main__":
    x = jnp.ones(8)
    key = jrandom.PRNGKey(0)
    print(eqx.filter_jit(lambda m, x, k: m(x, key=k))(Dropout(0.5), x, key))
    print(eqx.filter_jit(lambda m, x: m(x))(Dropout(0.5, inference=True), x))
    print(jax.jit(lambda x, k: Dropout(0.25)(x, key=k))(x, key))
