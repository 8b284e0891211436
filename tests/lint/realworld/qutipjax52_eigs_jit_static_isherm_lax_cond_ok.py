# source: https://github.com/qutip/qutip-jax/blob/92b2f30/src/qutip_jax/linalg.py (the merged
#   fix of https://github.com/qutip/qutip-jax/pull/52, "fix _eigs_jaxarray to be compatible with
#   jit": eigs_jaxarray jitted with isherm, vecs, sort and eigvals static, jnp.bool_ of the traced
#   hermiticity test and lax.cond between eigh and eig; jaxarray.py and properties.py as at the PR)
# observed on jax 0.10.2 CPU: eigs_jaxarray runs eagerly and under jax.jit, with isherm=None
#   (decided by lax.cond on the traced jnp.allclose) and with isherm given; the jitted trace
#   distance matches the eager one.
# gap: exemption-vs-JAX
# added: a stand-in for qutip's Data base class (it only stores the shape), atol=1e-12 for
#   qutip.settings.core["atol"], the `tracedist` stand-in (as in the bug file of the same PR),
#   and the __main__ block; the qutip.data.eigs.add_specialisations registration is left out.
import jax
import jax.numpy as jnp
from jax import tree_util, config, jit, lax
import numbers
import numpy as np
from functools import partial

config.update("jax_enable_x64", True)


class Data:  # stand-in for qutip.core.data.base.Data
    def __init__(self, shape):
        self.shape = shape


class JaxArray(Data):
    _jxa: jnp.ndarray
    shape: tuple

    def __init__(self, data, shape=None, copy=None):
        jxa = jnp.array(data, dtype=jnp.complex128)

        if shape is None:
            shape = data.shape
            if len(shape) == 0:
                shape = (1, 1)
            if len(shape) == 1:
                shape = (shape[0], 1)
        if not (
            isinstance(shape, tuple)
            and len(shape) == 2
            and isinstance(shape[0], numbers.Integral)
            and isinstance(shape[1], numbers.Integral)
            and shape[0] > 0
            and shape[1] > 0
        ):
            raise ValueError(
                """Shape must be a 2-tuple of positive ints, but is """
                + repr(shape)
            )
        if np.prod(shape) != np.prod(data.shape):
            raise ValueError("Shape of data does not match argument.")

        self._jxa = jxa.reshape(shape)
        Data.__init__(self, shape)

    def adjoint(self):
        return self.__class__(self._jxa.T.conj())

    def __sub__(self, other):
        if isinstance(other, JaxArray):
            out = self._jxa - other._jxa
            return JaxArray._fast_constructor(out, out.shape)
        return NotImplemented

    def __matmul__(self, other):
        if isinstance(other, JaxArray):
            out = self._jxa @ other._jxa
            return JaxArray._fast_constructor(out, out.shape)
        return NotImplemented

    @classmethod
    @partial(jit, static_argnames=["cls", "shape"])
    def _fast_constructor(cls, array, shape):
        out = cls.__new__(cls)
        Data.__init__(out, shape)
        out._jxa = array
        return out

    def _tree_flatten(self):
        children = (self._jxa,)  # arrays / dynamic values
        aux_data = {}  # static values
        return (children, aux_data)

    @classmethod
    def _tree_unflatten(cls, aux_data, children):
        # unflatten should not check data validity
        # jax can pass tracer, object, etc.
        out = cls.__new__(cls)
        out._jxa = children[0]
        shape = getattr(out._jxa, "shape", (1,1))
        Data.__init__(out, shape)
        return out


tree_util.register_pytree_node(
    JaxArray, JaxArray._tree_flatten, JaxArray._tree_unflatten
)


@partial(jit, static_argnames=["tol"])
def _isherm(matrix, tol):
    return jnp.allclose(matrix, matrix.T.conj(), atol=tol, rtol=0)


# jitting this makes it 100x slower for nonsquare.
# splitting it like this seems ideal.
def isherm_jaxarray(matrix, tol=None):
    if matrix.shape[0] != matrix.shape[1]:
        return False
    if tol is None:
        tol = 1e-12  # qutip.settings.core["atol"]
    return _isherm(matrix._jxa, tol)


def herm_with_vecs(data):
    evals, evecs = jnp.linalg.eigh(data)
    evals, evecs = evals.astype(data.dtype), evecs.astype(data.dtype)
    return evals, evecs

def nonherm_with_vecs(data):
    evals, evecs = jnp.linalg.eig(data)
    evals, evecs = evals.astype(data.dtype), evecs.astype(data.dtype)
    return evals, evecs

def herm_no_vecs(data):
    evals = jnp.linalg.eigvalsh(data)
    evals = evals.astype(data.dtype)
    return evals, None

def nonherm_no_vecs(data):
    evals = jnp.linalg.eigvals(data)
    evals = evals.astype(data.dtype)
    return evals, None


@partial(jit, static_argnums=[1, 2, 3, 4])
def eigs_jaxarray(data, isherm=None, vecs=True, sort='low', eigvals=0):
    """
    Return eigenvalues and eigenvectors for a `Data` of type `"jax"`. Takes no
    special keyword arguments; see the primary documentation in :func:`.eigs`.
    """
    N = data.shape[0]
    if data.shape[0] != data.shape[1]:
        raise TypeError("Can only diagonalize square matrices")
    if sort not in ('low', 'high'):
        raise ValueError("'sort' must be 'low' or 'high'")
    if eigvals > N:
        raise ValueError("Number of requested eigen vals/vecs must be <= N.")
    eigvals = eigvals or N
    low_first = {"low": True, "high": False}[sort]
    isherm = isherm if isherm is not None else jnp.bool_(isherm_jaxarray(data))

    if vecs:
        evals, evecs = lax.cond(
            isherm, herm_with_vecs,
            nonherm_with_vecs, data._jxa
        )
    else:
        evals, evecs = lax.cond(
            isherm, herm_no_vecs,
            nonherm_no_vecs, data._jxa
        )
    
    perm = jnp.argsort(evals.real)
    evals = evals[perm]
    if not low_first:
        evals = evals[::-1]
    evals = evals[:eigvals]

    if vecs:
        evecs = evecs[:, perm]
        if not low_first:
            evecs = evecs[:, ::-1]
        evecs = evecs[:, :eigvals]

    return (evals, JaxArray(evecs, copy=False)) if vecs else evals


def tracedist(A, B):  # stand-in for qutip.tracedist on JaxArray-backed Qobjs
    diff = A - B
    diff = diff.adjoint() @ diff
    vals = eigs_jaxarray(diff, vecs=False)
    return jnp.sum(jnp.sqrt(jnp.abs(vals))) / 2


if __name__ == "__main__":
    rho = JaxArray(np.diag([0.75, 0.25]))
    sigma = JaxArray(np.array([[0.5, 0.5], [0.5, 0.5]]))
    eager = tracedist(rho, sigma)
    jitted = jax.jit(tracedist)(rho, sigma)
    assert jnp.allclose(eager, jitted)
    evals, evecs = eigs_jaxarray(sigma, isherm=True, sort='high', eigvals=1)
    assert jnp.allclose(evals, 1.0) and evecs.shape == (2, 1)
    nonherm = JaxArray(np.array([[1.0, 2.0], [0.0, 3.0]]))
    assert jnp.allclose(jax.jit(lambda d: eigs_jaxarray(d, vecs=False))(nonherm), jnp.array([1.0, 3.0]))
    print(eager, jitted)
