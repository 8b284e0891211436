# source: https://github.com/PlasmaControl/DESC/blob/004108a97c183e26fdb5983b20c24007ec13a75d/desc/objectives/utils.py
#   DESC's factorize_linear_constraints (called by each build of its constraint projections) before
#   PR #1043, where the author notes that every call returns new @jit project/recover functions.
# observed on jax 0.10.2 CPU: calling factorize_linear_constraints twice with the same objective and
#   constraint and using project/recover each time compiles jit(project) and jit(recover) twice.
#   Changed: the in-function `from desc.optimize import ProximalProjection` is a module-level stand-in
#   class; the file's other functions (softmax, combine_args, ...) are left out. Added: put (desc.backend)
#   and Index, errorif, warnif, svd_inv_null (desc.utils) copied from stored DESC versions, stand-in
#   objective/constraint objects for one linear constraint on a 4-vector, x64 enabled as desc.backend
#   does, and the __main__ block.
# gap: per-call-recompile
import warnings

import numpy as np

import jax
import jax.numpy as jnp
from jax import jit

jax.config.update("jax_enable_x64", True)


def put(arr, inds, vals):
    """Functional interface for array "fancy indexing"."""
    if isinstance(arr, np.ndarray):
        arr[inds] = vals
        return arr
    return jnp.asarray(arr).at[inds].set(vals)


class _Indexable:
    """Helper object for building indexes for indexed update functions."""

    __slots__ = ()

    def __getitem__(self, index):
        return index


Index = _Indexable()


def errorif(cond, err=ValueError, msg=""):
    if cond:
        raise err(msg)


def warnif(cond, err=UserWarning, msg=""):
    if cond:
        warnings.warn(msg, err)


def svd_inv_null(A):
    u, s, vh = np.linalg.svd(A, full_matrices=True)
    M, N = u.shape[0], vh.shape[1]
    K = min(M, N)
    rcond = np.finfo(A.dtype).eps * max(M, N)
    tol = np.amax(s) * rcond
    large = s > tol
    num = np.sum(large, dtype=int)
    uk = u[:, :K]
    vhk = vh[:K, :]
    s = np.divide(1, s, where=large, out=s)
    s[(~large,)] = 0
    Ainv = np.matmul(vhk.T, np.multiply(s[..., np.newaxis], uk.T))
    Z = vh[num:, :].T.conj()
    return Ainv, Z


class ProximalProjection:
    """Stand-in for desc.optimize.ProximalProjection (not used here)."""


def factorize_linear_constraints(objective, constraint):  # noqa: C901
    """Compute and factorize A to get pseudoinverse and nullspace.

    Given constraints of the form Ax=b, factorize A to find a particular solution xp
    and the null space Z st. Axp=b and AZ=0, so that the full space of solutions to
    Ax=b can be written as x=xp + Zy where y is now unconstrained.

    Parameters
    ----------
    objective : ObjectiveFunction
        Objective function to optimize.
    constraint : ObjectiveFunction
        Objective function of linear constraints to enforce.

    Returns
    -------
    xp : ndarray
        Particular solution to Ax=b.
    A : ndarray ndarray
        Combined constraint matrix, such that A @ x[unfixed_idx] == b.
    b : list of ndarray
        Combined RHS vector.
    Z : ndarray
        Null space operator for full combined A such that A @ Z == 0.
    unfixed_idx : ndarray
        Indices of x that correspond to non-fixed values.
    project, recover : function
        Functions to project full vector x into reduced vector y,
        and to recover x from y.

    """
    for con in constraint.objectives:
        errorif(
            not con.linear,
            ValueError,
            "Cannot handle nonlinear constraint {con}.",
        )
        errorif(
            con.bounds is not None,
            ValueError,
            f"Linear constraint {con} must use target instead of bounds.",
        )
        for thing in con.things:
            warnif(
                thing not in objective.things,
                UserWarning,
                f"Optimizable object {thing} is constrained by {con}"
                + " but not included in objective.",
            )

    # particular solution to Ax=b
    xp = jnp.zeros(objective.dim_x)

    # linear constraints Ax=b
    x0 = jnp.zeros(constraint.dim_x)
    A = constraint.jac_scaled(x0)
    b = -constraint.compute_scaled_error(x0)

    if isinstance(objective, ProximalProjection):
        # remove cols of A corresponding to ["R_lmn", "Z_lmn", "L_lmn", "Ra_n", "Za_n"]
        c = 0
        cols = np.array([], dtype=int)
        for t in objective.things:
            if t is objective._eq:
                for arg, dim in objective._eq.dimensions.items():
                    if arg in objective._args:  # these Equilibrium args are kept
                        cols = np.append(cols, np.arange(c, c + dim))
                    c += dim  # other Equilibrium args are removed
            else:  # non-Equilibrium args are always included
                cols = np.append(cols, np.arange(c, c + t.dim_x))
                c += t.dim_x
        A = A[:, cols]
    assert A.shape[1] == xp.size

    # will store the global index of the unfixed rows, idx
    indices_row = np.arange(A.shape[0])
    indices_idx = np.arange(A.shape[1])

    # while loop has problems updating JAX arrays, convert them to numpy arrays
    A = np.array(A)
    b = np.array(b)
    while len(np.where(np.count_nonzero(A, axis=1) == 1)[0]):
        # fixed just means there is a single element in A, so A_ij*x_j = b_i
        fixed_rows = np.where(np.count_nonzero(A, axis=1) == 1)[0]
        # indices of x that are fixed = cols of A where rows have 1 nonzero val.
        _, fixed_idx = np.where(A[fixed_rows])
        unfixed_rows = np.setdiff1d(np.arange(A.shape[0]), fixed_rows)
        unfixed_idx = np.setdiff1d(np.arange(A.shape[1]), fixed_idx)

        # find the global index of the fixed variables of this iteration
        global_fixed_idx = indices_idx[fixed_idx]
        # find the global index of the unfixed variables by removing the fixed variables
        # from the indices arrays.
        indices_idx = np.delete(indices_idx, fixed_idx)  # fixed indices are removed
        indices_row = np.delete(indices_row, fixed_rows)  # fixed rows are removed

        if len(fixed_rows):
            # something like 0.5 x1 = 2 is the same as x1 = 4
            b = put(b, fixed_rows, b[fixed_rows] / np.sum(A[fixed_rows], axis=1))
            A = put(
                A,
                Index[fixed_rows, :],
                A[fixed_rows] / np.sum(A[fixed_rows], axis=1)[:, None],
            )
            xp = put(xp, global_fixed_idx, b[fixed_rows])
            # Some values might be fixed, but they still show up in other constraints
            # this is where the fixed cols have >1 nonzero val.
            # For fixed variables, we delete that row and col of A, but that means
            # we need to subtract the fixed value from b so that the equation is
            # balanced.
            # e.g., 2 x1 + 3 x2 + 1 x3 = 4 ; 4 x1 = 2
            # combining gives 3 x2 + 1 x3 = 3, with x1 now removed
            b = put(
                b,
                unfixed_rows,
                b[unfixed_rows] - A[unfixed_rows][:, fixed_idx] @ b[fixed_rows],
            )
        A = A[unfixed_rows][:, unfixed_idx]
        b = b[unfixed_rows]
    unfixed_idx = indices_idx
    if A.size:
        Ainv_full, Z = svd_inv_null(A)
    else:
        Ainv_full = A.T
        Z = np.eye(A.shape[1])
    Ainv_full = jnp.asarray(Ainv_full)
    Z = jnp.asarray(Z)
    b = jnp.asarray(b)
    xp = put(xp, unfixed_idx, Ainv_full @ b)
    xp = jnp.asarray(xp)

    @jit  # expect: JIT301
    def project(x):
        """Project a full state vector into the reduced optimization vector."""
        x_reduced = Z.T @ ((x - xp)[unfixed_idx])
        return jnp.atleast_1d(jnp.squeeze(x_reduced))

    @jit  # expect: JIT301
    def recover(x_reduced):
        """Recover the full state vector from the reduced optimization vector."""
        dx = put(jnp.zeros(objective.dim_x), unfixed_idx, Z @ x_reduced)
        return jnp.atleast_1d(jnp.squeeze(xp + dx))

    # check that all constraints are actually satisfiable
    params = objective.unpack_state(xp, False)
    for con in constraint.objectives:
        xpi = [params[i] for i, t in enumerate(objective.things) if t in con.things]
        y1 = con.compute_unscaled(*xpi)
        y2 = con.target
        y1, y2 = np.broadcast_arrays(y1, y2)

        # If the error is very large, likely want to error out as
        # it probably is due to a real mistake instead of just numerical
        # roundoff errors.
        np.testing.assert_allclose(
            y1,
            y2,
            atol=1e-6,
            rtol=1e-1,
            err_msg="Incompatible constraints detected, cannot satisfy constraint "
            + f"{con}.",
        )

        # else check with tighter tols and throw an error, these tolerances
        # could be tripped due to just numerical roundoff or poor scaling between
        # constraints, so don't want to error out but we do want to warn the user.
        atol = 3e-14
        rtol = 3e-14

        try:
            np.testing.assert_allclose(
                y1,
                y2,
                atol=atol,
                rtol=rtol,
                err_msg="Incompatible constraints detected, cannot satisfy constraint "
                + f"{con}.",
            )
        except AssertionError as e:
            warnif(
                True,
                UserWarning,
                str(e) + "\n This may indicate incompatible constraints, "
                "or be due to floating point error.",
            )

    return xp, A, b, Z, unfixed_idx, project, recover


class _Thing:
    dim_x = 4


class _LinearConstraint:
    """Stand-in: x0 = 1 and x1 + x2 = 1."""

    linear = True
    bounds = None

    def __init__(self, thing):
        self.things = [thing]
        self.A = jnp.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0]])
        self.target = np.array([1.0, 1.0])

    def compute_unscaled(self, x):
        return self.A @ x


class _ConstraintFunction:
    def __init__(self, con):
        self.objectives = [con]
        self.dim_x = 4

    def jac_scaled(self, x):
        return self.objectives[0].A

    def compute_scaled_error(self, x):
        return self.objectives[0].A @ x - self.objectives[0].target


class _ObjectiveFunction:
    def __init__(self, thing):
        self.things = [thing]
        self.dim_x = thing.dim_x

    def unpack_state(self, x, per_objective=True):
        return [x]


if __name__ == "__main__":
    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiled.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None)

    eq = _Thing()
    objective = _ObjectiveFunction(eq)
    constraint = _ConstraintFunction(_LinearConstraint(eq))
    x = jnp.array([1.0, 0.3, 0.7, 2.0])
    for build in range(2):  # e.g. two builds of a LinearConstraintProjection
        xp, A, b, Z, unfixed_idx, project, recover = factorize_linear_constraints(
            objective, constraint
        )
        y = project(x)
        np.testing.assert_allclose(recover(y), x, atol=1e-6)
    # observed: line 205 jit(project) is compiled again on the second call
    # observed: line 211 jit(recover) is compiled again on the second call
    assert compiled.count("jit(project)") == 2, compiled
    assert compiled.count("jit(recover)") == 2, compiled
    print("compiled:", compiled.count("jit(project)"), compiled.count("jit(recover)"))
