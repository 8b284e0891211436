# source: https://github.com/netket/netket/issues/637
#   (netket's SR, SRLazy and SRLazyGMRES from netket/optimizer/sr/base.py and
#   sr_onthefly.py before the fixing commit 38308ec, "fix #637", which declared
#   `restart: int = struct.field(pytree_node=False, default=20)`)
# observed on jax 0.10.2 CPU: `nk.optimizer.SRLazyGMRES()` fails in the jitted
#   apply_onthefly: `restart` is a plain flax.struct field, so jit traces it with the rest of
#   the pytree, and jax.scipy.sparse.linalg.gmres, which sizes its Krylov basis with it
#   (`restart = min(restart, size)`), raises TracerBoolConversionError from the solve_fun
#   call. Added: the imports; the SR classes (verbatim, `create` left out); a stand-in for
#   netket's LazySMatrix and apply_onthefly (the S matrix held dense, the matrix-vector
#   product written out; the last three lines of apply_onthefly kept); the call.
# gap: types
from functools import partial
from typing import Callable, Optional, Union, Any

import jax
from jax import numpy as jnp
from flax import struct

Array = Any


@struct.dataclass
class SR:
    """
    Base class holding the parameters for the way to find the solution to
    (S + I*diag_shift) / F.
    """

    diag_shift: float = 0.01
    """Diagonal shift added to the S matrix."""


@struct.dataclass
class SRLazy(SR):
    """
    Base class holding the parameters for the iterative solution of the
    SR system x = ⟨S⟩⁻¹⟨F⟩, where S is a lazy linear operator

    Tolerances are applied according to the formula
    :code:`norm(residual) <= max(tol*norm(b), atol)`
    """

    tol: float = 1.0e-5
    """Relative tolerance for convergences."""

    atol: float = 0.0
    """Absolutes tolerance for convergences."""

    maxiter: int = None
    """Maximum number of iterations. Iteration will stop after maxiter steps even 
    if the specified tolerance has not been achieved.
    """

    M: Optional[Union[Callable, Array]] = None
    """Preconditioner for A. The preconditioner should approximate the inverse of A. 
    Effective preconditioning dramatically improves the rate of convergence, which implies 
    that fewer iterations are needed to reach a given error tolerance.
    """

    centered: bool = struct.field(pytree_node=False, default=True)
    """Uses S=⟨ΔÔᶜΔÔ⟩ if True (default), S=⟨ÔᶜΔÔ⟩ otherwise. The two forms are 
    mathematically equivalent, but might lead to different results due to numerical
    precision. The non-centered variaant should bee approximately 33% faster.
    """


@struct.dataclass
class SRLazyGMRES(SRLazy):
    """
    Computes x = ⟨S⟩⁻¹⟨F⟩ by using an iterative GMRES method.
    """

    restart: int = 20
    """Size of the Krylov subspace (“number of iterations”) built between restarts. 
    GMRES works by approximating the true solution x as its projection into a Krylov 
    space of this dimension - this parameter therefore bounds the maximum accuracy 
    achievable from any guess solution. Larger values increase both number of iterations 
    and iteration cost, but may be necessary for convergence. The algorithm terminates early 
    if convergence is achieved before the full subspace is built. 
    Default is 20
    """

    solve_method: str = struct.field(pytree_node=False, default="batched")
    """(‘incremental’ or ‘batched’) – The ‘incremental’ solve method builds a QR 
    decomposition for the Krylov subspace incrementally during the GMRES process 
    using Givens rotations. This improves numerical stability and gives a free estimate 
    of the residual norm that allows for early termination within a single “restart”. In 
    contrast, the ‘batched’ solve method solves the least squares problem from scratch at 
    the end of each GMRES iteration. It does not allow for early termination, but has much 
    less overhead on GPUs.
    """

    def solve_fun(self):
        return partial(
            jax.scipy.sparse.linalg.gmres,
            tol=self.tol,
            atol=self.atol,
            maxiter=self.maxiter,
            M=self.M,
            restart=self.restart,
            solve_method=self.solve_method,
        )


@struct.dataclass
class LazySMatrix:
    matrix: jnp.ndarray
    sr: SRLazy


@jax.jit
def apply_onthefly(S: LazySMatrix, grad, x0):
    _mat_vec = lambda v: S.matrix @ v + S.sr.diag_shift * v
    solve_fun = S.sr.solve_fun()
    out, info = solve_fun(_mat_vec, grad, x0=x0)  # expect: JIT404
    return out, info


S = LazySMatrix(jnp.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.5]]), SRLazyGMRES())
F = jnp.array([1.0, -1.0, 0.5])
dp, info = apply_onthefly(S, F, jnp.zeros(3))
