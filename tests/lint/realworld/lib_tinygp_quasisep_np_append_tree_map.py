# source: https://github.com/dfm/tinygp/blob/b15d52983c82175f25a35b1bb51b9e3b30593e45/src/tinygp/kernels/quasisep.py
#   (Quasisep.to_general_qsm and the Exp kernel before "Fixing dangling numpy op in
#   quasisep", https://github.com/dfm/tinygp/pull/81, commit 4d84fe6; the same error is
#   reported in https://github.com/dfm/tinygp/issues/85)
# observed on jax 0.10.2 CPU: jax.jit(kernel.to_general_qsm) raises
#   TracerArrayConversionError at `np.append(x[0], x[:-1])`: the leaves of X2 are tracers
#   and NumPy asks for their values. Called eagerly the method runs (NumPy converts the
#   concrete arrays).
#   Added: a stand-in for tinygp's GeneralQSM (a NamedTuple with the same fields), the
#   Kernel base class and tinygp.helpers (JAXArray is jax.Array, the dataclass decorator
#   is the standard library's); the abstract methods and the other methods of Quasisep
#   are left out; `jax.tree_map` (removed) is spelled `jax.tree.map`; the __main__ block
#   (the library reaches this method from GaussianProcess.condition under jax.jit).
# gap: types
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

JAXArray = jax.Array


class GeneralQSM(NamedTuple):
    pl: JAXArray
    ql: JAXArray
    pu: JAXArray
    qu: JAXArray
    a: JAXArray
    idx: JAXArray


class Quasisep:
    def coord_to_sortable(self, X: JAXArray) -> JAXArray:
        """A helper function used to convert coordinates to sortable 1-D values

        By default, this is the identity, but in cases where ``X`` is structured
        (e.g. multivariate inputs), this can be used to appropriately unwrap
        that structure.
        """
        return X

    def to_general_qsm(self, X1: JAXArray, X2: JAXArray) -> GeneralQSM:
        """The generalized quasiseparable representation of this kernel"""
        sortable = jax.vmap(self.coord_to_sortable)
        idx = jnp.searchsorted(sortable(X2), sortable(X1), side="right") - 1

        Xs = jax.tree_util.tree_map(lambda x: np.append(x[0], x[:-1]), X2)  # expect: JIT402
        Pinf = self.stationary_covariance()
        a = jax.vmap(self.transition_matrix)(Xs, X2)
        h1 = jax.vmap(self.observation_model)(X1)
        h2 = jax.vmap(self.observation_model)(X2)

        ql = h2
        pl = h1 @ Pinf
        qu = h1
        pu = h2 @ Pinf

        i = jnp.clip(idx, 0, ql.shape[0] - 1)
        Xi = jax.tree.map(lambda x: jnp.asarray(x)[i], X2)
        pl = jax.vmap(jnp.dot)(pl, jax.vmap(self.transition_matrix)(Xi, X1))

        i = jnp.clip(idx + 1, 0, pu.shape[0] - 1)
        Xi = jax.tree.map(lambda x: jnp.asarray(x)[i], X2)
        qu = jax.vmap(jnp.dot)(jax.vmap(self.transition_matrix)(X1, Xi), qu)

        return GeneralQSM(pl=pl, ql=ql, pu=pu, qu=qu, a=a, idx=idx)


@dataclass
class Exp(Quasisep):
    r"""A scalable implementation of :class:`tinygp.kernels.stationary.Exp`

    This kernel takes the form:

    .. math::

        k(\tau)=\sigma^2\,\exp\left(-\frac{\tau}{\ell}\right)

    for :math:`\tau = |x_i - x_j|`.

    Args:
        scale: The parameter :math:`\ell`.
        sigma: The parameter :math:`\sigma`.
    """

    scale: JAXArray
    sigma: JAXArray = field(default_factory=lambda: jnp.ones(()))

    def design_matrix(self) -> JAXArray:
        return jnp.array([[-1 / self.scale]])

    def stationary_covariance(self) -> JAXArray:
        return jnp.ones((1, 1))

    def observation_model(self, X: JAXArray) -> JAXArray:
        return jnp.array([self.sigma])

    def transition_matrix(self, X1: JAXArray, X2: JAXArray) -> JAXArray:
        dt = X2 - X1
        return jnp.exp(-dt[None, None] / self.scale)


if __name__ == "__main__":
    kernel = Exp(scale=jnp.asarray(1.5))
    X_train = jnp.linspace(0.0, 10.0, 20)
    X_test = jnp.linspace(-1.0, 11.0, 7)
    kernel.to_general_qsm(X_test, X_train)  # eager: runs
    jax.jit(kernel.to_general_qsm)(X_test, X_train)
