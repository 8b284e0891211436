# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/distributions/util.py
#   (vec_to_tril_matrix, numpyro 0.22.0 as released; copied unchanged)
# observed on jax 0.10.2 CPU: runs clean under jit; n is computed with math from the
#   static shape, so jnp.arange/tril_indices/reshape get concrete sizes.
# gap: omnistaging
import math

import jax
import jax.numpy as jnp
from jax import lax


def vec_to_tril_matrix(t, diagonal=0):
    # NB: the following formula only works for diagonal <= 0
    n = round((math.sqrt(1 + 8 * t.shape[-1]) - 1) / 2) - diagonal
    n2 = n * n
    idx = jnp.reshape(jnp.arange(n2), (n, n))[jnp.tril_indices(n, diagonal)]
    x = lax.scatter_add(
        jnp.zeros(t.shape[:-1] + (n2,)),
        jnp.expand_dims(idx, axis=-1),
        t,
        lax.ScatterDimensionNumbers(
            update_window_dims=range(t.ndim - 1),
            inserted_window_dims=(t.ndim - 1,),
            scatter_dims_to_operand_dims=(t.ndim - 1,),
        ),
    )
    return jnp.reshape(x, x.shape[:-1] + (n, n))


if __name__ == "__main__":
    print(jax.jit(vec_to_tril_matrix)(jnp.arange(6.0)))
    print(jax.jit(vec_to_tril_matrix, static_argnums=1)(jnp.ones((2, 3)), -1))
