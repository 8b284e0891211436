# source: https://github.com/netket/netket/blob/5404d272f2208f40c17f7431739282879e89350d/netket/operator/_discrete_operator_jax.py
#   (netket's DiscreteJaxOperator.n_conn before commit 4455459 "make sure nobody uses jitted
#   n_conn with out", which replaced `out[:] = _n_conn` by a ValueError: "cannot do this
#   inside of jit")
# observed on jax 0.10.2 CPU: op.n_conn(x) works; op.n_conn(x, out=np.empty(...)), the
#   DiscreteOperator.n_conn(x, out) calling convention, raises TypeError ("JAX arrays are
#   immutable ... does not support item assignment") at `out[:] = _n_conn`: jit traces the
#   NumPy `out` buffer too, so it is a tracer, not the caller's array.
#   Added: the imports; a minimal stand-in for netket's operator base (a pytree class, as
#   netket's operators are) and a one-flip operator providing get_conn_padded, so that the
#   method (verbatim) can be called; the two calls at the end.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np


@jax.tree_util.register_pytree_node_class
class DiscreteJaxOperator:
    def __init__(self, n):
        self.n = n

    def tree_flatten(self):
        return (), self.n

    @classmethod
    def tree_unflatten(cls, n, children):
        return cls(n)

    def get_conn_padded(self, x):
        xp = jnp.broadcast_to(x[..., None, :], (*x.shape[:-1], self.n, self.n))
        xp = xp * (1 - 2 * jnp.eye(self.n, dtype=x.dtype))
        return xp, jnp.ones((*x.shape[:-1], self.n))

    @jax.jit
    def n_conn(self, x, out=None) -> np.ndarray:
        r"""Return the number of (non-zero) connected entries to `x`.

        .. warning::

            This is not the True number of connected entries, because some elements
            might appear twice (however this should not be too common.)

            Note that this deviates from the Numba implementation, and can generally
            return a smaller number of connected entries.

        Args:
            x (matrix): A matrix of shape (batch_size,hilbert.size) containing
                        the batch of quantum numbers x.
            out (array): If None an output array is allocated.

        Returns:
            array: The number of connected states x' for each x[i].
        """
        _, mels = self.get_conn_padded(x)
        nonzeros = jnp.abs(x) > 0
        _n_conn = nonzeros.sum(axis=-1)

        if out is None:
            out = _n_conn
        else:
            out[:] = _n_conn  # expect: JIT501
        return out


op = DiscreteJaxOperator(4)
x = jnp.array([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0]])
print(op.n_conn(x))
out = np.empty(x.shape[0], dtype=np.int32)
op.n_conn(x, out=out)
