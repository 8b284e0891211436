# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/equinox/nn/_embedding.py
#   (Embedding, equinox 0.13.8 as released; docstrings shortened, the named_scope decorator
#   and jaxtyping annotations left out)
# observed on jax 0.10.2 CPU: runs clean under eqx.filter_jit and jax.vmap: the checks in
#   __init__ run eagerly, and `if is_array_like(x) and jnp.shape(x) == ()` in __call__ reads
#   the type and static shape of x.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import jax.random as jrandom
import equinox as eqx
from equinox import Module, field, is_array_like
from equinox._misc import default_floating_dtype


class Embedding(Module):
    """A simple lookup table that stores embeddings of a fixed size."""

    num_embeddings: int = field(static=True)
    embedding_size: int = field(static=True)
    weight: jax.Array

    def __init__(
        self,
        num_embeddings=None,
        embedding_size=None,
        weight=None,
        dtype=None,
        *,
        key=None,
    ):
        dtype = default_floating_dtype() if dtype is None else dtype
        if weight is None:
            if num_embeddings is None or embedding_size is None or key is None:
                raise ValueError(
                    "Must provide `eqx.nn.Embedding(num_embeddings=..., "
                    "embedding_size=..., key=...)` if not providing the weight "
                    "directly."
                )
            if num_embeddings < 0:
                raise ValueError("num_embeddings must not be negative.")
            if embedding_size < 0:
                raise ValueError("embedding_size must not be negative.")
            self.weight = jrandom.normal(
                key, (num_embeddings, embedding_size), dtype=dtype
            )
        else:
            if weight.ndim != 2:
                raise ValueError(
                    "weight must have shape (num_embeddings, embedding_size)."
                )
            if num_embeddings is None:
                num_embeddings: int = weight.shape[0]
            if embedding_size is None:
                embedding_size: int = weight.shape[1]
            if weight.shape != (num_embeddings, embedding_size):
                raise ValueError(
                    "weight must have shape (num_embeddings, embedding_size)."
                )
            self.weight = weight
        self.num_embeddings = num_embeddings
        self.embedding_size = embedding_size

    def __call__(self, x, *, key=None):
        if is_array_like(x) and jnp.shape(x) == ():
            return self.weight[x]
        else:
            raise ValueError(
                "`eqx.nn.Embedding()(x)` should be called with a scalar index `x`. "
                "Use `jax.vmap` if you would like to index with multiple values."
            )


if __name__ == "__main__":
    emb = Embedding(10, 4, key=jrandom.PRNGKey(0))
    out = eqx.filter_jit(lambda m, i: m(i))(emb, jnp.array(3))
    assert jnp.allclose(out, emb.weight[3])
    outs = eqx.filter_jit(lambda m, ii: jax.vmap(m)(ii))(emb, jnp.array([1, 2, 5]))
    assert outs.shape == (3, 4)
