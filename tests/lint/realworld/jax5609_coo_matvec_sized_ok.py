# source: https://github.com/jax-ml/jax/issues/5609 (the reporter's work-around, in the
#   thread)
# observed on jax 0.10.2 CPU: runs clean under jit: the output length comes from
#   `sized.size`, a Python int while tracing, instead of a traced `nrows`, and the
#   `assert` tests `v.ndim`, also a Python value.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

@jax.jit
def coo_matvec(data, row, col, sized, v):
    assert v.ndim == 1
    dv = data * v[col]
    return jnp.zeros(sized.size, dtype=dv.dtype).at[row].add(dv)


if __name__ == "__main__":
    dense = jnp.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    row, col = jnp.nonzero(dense)
    data = dense[row, col]
    v = jnp.array([1.0, 2.0, 3.0])
    out = coo_matvec(data, row, col, jnp.empty(2), v)
    assert jnp.allclose(out, dense @ v)
