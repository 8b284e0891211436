# source: https://github.com/jaxleyverse/jaxley/pull/1
#   ("make solver work with jit and vmap": neurax/solver.py as of its first commit
#   7eec98da; the PR's next commit 91e70927, "refactor to correct code and make everything
#   jit-compilable", changes `solves.at[bil].set(...)` to `solves = solves.at[bil].set(...)`)
# observed on jax 0.10.2 CPU: _backsub_level (line 144) builds the back-substituted values
#   with `.at[bil].set(...)` and throws them away, so under jax.jit it returns `solves`
#   unchanged and solve_branched returns the triangulated right-hand side instead of the
#   solution (far from numpy's dense solve of the same system). Kept as the PR's first
#   commit wrote it (the parent index -1 reached at the root level is a separate logic bug
#   of that commit, fixed by the same follow-up, and not a jit bug). Added: thomas_triang
#   and thomas_backsub are tridiax/thomas.py at jaxleyverse/tridiax@535734c (tridiax is not
#   installed), and the __main__ block with a three-branch example system and a dense
#   numpy reference.
# gap: other
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax import vmap


# --- stand-in for `from tridiax.thomas import thomas_triang, thomas_backsub`:
# --- tridiax/thomas.py at jaxleyverse/tridiax@535734c (2023-03-17), the version the
# --- solver was written against (thomas_solve left out)
def thomas_triang(
    lower: jnp.ndarray,
    diag: jnp.ndarray,
    upper: jnp.ndarray,
    solve: jnp.ndarray,
    divide_last: bool = False,
):
    n = len(solve)
    u_upper = jnp.zeros(n - 1)
    u_upper = u_upper.at[0].set(upper[0] / diag[0])
    u_upper = lax.fori_loop(1, n - 1, _u_upper_update, (u_upper, upper, diag, lower))[0]

    y = jnp.zeros(n)
    y = y.at[0].set(solve[0] / diag[0])
    y = lax.fori_loop(1, n - 1, _y_update, (solve, lower, y, diag, u_upper))[2]

    # Handle last row separately.
    newdiag = jnp.ones_like(diag)
    y = y.at[-1].set(solve[-1] - lower[-1] * y[-2])
    if divide_last:
        y = y.at[-1].set(y[-1] / (diag[-1] - lower[-1] * u_upper[-1]))
    else:
        newdiag = newdiag.at[-1].set(diag[-1] - lower[-1] * u_upper[-1])

    return newdiag, u_upper, y


def thomas_backsub(solve: jnp.ndarray, upper: jnp.ndarray, diag: jnp.ndarray):
    n = len(solve)
    x = jnp.zeros(n)
    x = x.at[0].set(solve[n - 1] / diag[n - 1])
    x = lax.fori_loop(0, n - 1, _x_update, (solve, upper, x, n))[2]

    return jnp.flip(x)


def _u_upper_update(i, val):
    u_upper, upper, diag, lower = val
    u_upper = u_upper.at[i].set(upper[i] / (diag[i] - lower[i - 1] * u_upper[i - 1]))
    return (u_upper, upper, diag, lower)


def _y_update(i, val):
    solve, lower, y, diag, u_upper = val
    y = y.at[i].set(
        (solve[i] - lower[i - 1] * y[i - 1]) / (diag[i] - lower[i - 1] * u_upper[i - 1])
    )
    return (solve, lower, y, diag, u_upper)


def _x_update(i, val):
    y, u_upper, x, n = val
    x = x.at[i + 1].set(y[n - i - 2] - u_upper[n - i - 2] * x[i])
    return (y, u_upper, x, n)
# --- end of stand-in



def solve_branched(
    parents,
    lowers,
    diags,
    uppers,
    solves,
    branch_cond,
):
    diags, uppers, solves = triang_branched(
        parents, lowers, diags, uppers, solves, branch_cond
    )
    solves = backsub_branched(parents, diags, uppers, solves, branch_cond)
    return solves


def triang_branched(
    parents,
    lowers,
    diags,
    uppers,
    solves,
    branch_cond,
):
    branches_in_each_level = [jnp.asarray([1, 2]), jnp.asarray([0])]
    for bil in branches_in_each_level:
        diags, uppers, solves = _triang_level(bil, lowers, diags, uppers, solves)
        diags, solves = _eliminate_parents_upper(
            bil, parents, diags, solves, branch_cond
        )

    return diags, uppers, solves


def backsub_branched(
    parents,
    diags,
    uppers,
    solves,
    branch_cond,
):
    branches_in_each_level = [jnp.asarray([0]), jnp.asarray([1, 2])]
    for bil in branches_in_each_level:
        solves = _eliminate_children_lower(bil, parents, solves, branch_cond)
        solves = _backsub_level(bil, diags, uppers, solves)
    return solves


def _triang_level(branches_in_level, lowers, diags, uppers, solves):
    bil = branches_in_level
    new_diags, new_uppers, new_solves = vmap(thomas_triang, in_axes=(0, 0, 0, 0))(
        lowers[bil], diags[bil], uppers[bil], solves[bil]
    )
    diags = diags.at[bil].set(new_diags)
    uppers = uppers.at[bil].set(new_uppers)
    solves = solves.at[bil].set(new_solves)

    return diags, uppers, solves


def _backsub_level(branches_in_level, diags, uppers, solves):
    bil = branches_in_level
    solves.at[bil].set(  # expect: JIT503
        vmap(thomas_backsub, in_axes=(0, 0, 0))(solves[bil], uppers[bil], diags[bil])
    )
    return solves


def _eliminate_single_parent_upper(diag_at_branch, solve_at_branch, branch_cond):
    last_of_3 = diag_at_branch
    last_of_3_solve = solve_at_branch

    multiplying_factor = branch_cond / last_of_3

    update_diag = -multiplying_factor * branch_cond
    update_solve = -multiplying_factor * last_of_3_solve
    return update_diag, update_solve


def _eliminate_parents_upper(branches_in_level, parents, diags, solves, branch_cond):
    bil = branches_in_level
    new_diag, new_solve = vmap(_eliminate_single_parent_upper, in_axes=(0, 0, None))(
        diags[bil, -1], solves[bil, -1], branch_cond
    )
    for i, b in enumerate(bil):
        diags = diags.at[parents[b], 0].set(diags[parents[b], 0] + new_diag[i])
        solves = solves.at[parents[b], 0].set(solves[parents[b], 0] + new_solve[i])
    return diags, solves


def _eliminate_children_lower(branches_in_level, parents, solves, branch_cond):
    bil = branches_in_level
    for b in bil:
        solves = solves.at[b, -1].set(
            solves[b, -1] - branch_cond * solves[parents[b], 0]
        )
    return solves


def _dense_reference(parents, lowers, diags, uppers, solves, branch_cond):
    # added: the same system as one dense matrix, solved with numpy
    nb, n = diags.shape
    A = np.zeros((nb * n, nb * n))
    for b in range(nb):
        o = b * n
        A[o + np.arange(n), o + np.arange(n)] = diags[b]
        A[o + np.arange(1, n), o + np.arange(n - 1)] = lowers[b]
        A[o + np.arange(n - 1), o + np.arange(1, n)] = uppers[b]
        if parents[b] > -1:
            A[o + n - 1, parents[b] * n] = branch_cond
            A[parents[b] * n, o + n - 1] = branch_cond
    return np.linalg.solve(A, np.asarray(solves).ravel()).reshape(nb, n)


def _example_system():
    # added: a root branch 0 with two child branches 1 and 2, 6 compartments each
    rng = np.random.default_rng(0)
    nb, n = 3, 6
    parents = jnp.asarray([-1, 0, 0])
    lowers = jnp.asarray(-rng.uniform(0.5, 1.0, (nb, n - 1)))
    uppers = jnp.asarray(-rng.uniform(0.5, 1.0, (nb, n - 1)))
    diags = jnp.asarray(rng.uniform(4.0, 5.0, (nb, n)))
    solves = jnp.asarray(rng.normal(size=(nb, n)))
    branch_cond = -0.7
    return parents, lowers, diags, uppers, solves, branch_cond


if __name__ == "__main__":
    parents, lowers, diags, uppers, solves, branch_cond = _example_system()
    bil = jnp.asarray([1, 2])
    backsub = jax.jit(_backsub_level)(bil, diags, uppers, solves)
    # observed: line 144 discards the back-substituted values: solves comes back unchanged
    assert jnp.array_equal(backsub, solves)
    x = jax.jit(solve_branched)(parents, lowers, diags, uppers, solves, branch_cond)
    ref = _dense_reference(parents, lowers, diags, uppers, solves, branch_cond)
    assert not np.allclose(np.asarray(x), ref, atol=1e-4), (x, ref)
