# source: https://github.com/jkitchin/pounce/blob/82b7572d4c00078cafe187a4b18f2d7ee7774b23/python/pounce/jax/_qp.py
#   (_expand_bounds, verbatim, before the fix of https://github.com/jkitchin/pounce/issues/795;
#   the rest of the module needs pounce's compiled solver and is left out. The __main__ block
#   folds the report's bounds (n=2, jnp lb/ub) as solve_qp does, inside jax.jit, with the
#   bounds closed over as concrete jnp arrays)
# observed on jax 0.10.2 CPU: ConcretizationTypeError at float(ub[i]): under jit, indexing
#   even a concrete jnp array is staged, so ub[i] is a tracer. The lb loop below has the same
#   float() and never runs.
# gap: omnistaging
import jax
import jax.numpy as jnp
import numpy as np


def _expand_bounds(G, h, lb, ub, n):
    """Fold finite variable bounds into G/h as extra rows.

    Returns ``(G_full, h_full)`` as dense jnp arrays. ``x_i ≤ ub_i`` and
    ``−x_i ≤ −lb_i``."""
    rows = []
    rhs = []
    if G is not None and G.shape[0] > 0:
        rows.append(G)
        rhs.append(h)
    if ub is not None:
        for i in range(n):
            if np.isfinite(float(ub[i])):  # expect: JIT401
                e = jnp.zeros(n).at[i].set(1.0)
                rows.append(e[None, :])
                rhs.append(jnp.asarray(ub[i]).reshape(1))
    if lb is not None:
        for i in range(n):
            if np.isfinite(float(lb[i])):  # tolerate: JIT401
                e = jnp.zeros(n).at[i].set(-1.0)
                rows.append(e[None, :])
                rhs.append((-jnp.asarray(lb[i])).reshape(1))
    if not rows:
        return jnp.zeros((0, n)), jnp.zeros((0,))
    return jnp.concatenate(rows, axis=0), jnp.concatenate(rhs, axis=0)


if __name__ == "__main__":
    n = 2
    lb = jnp.array([-10.0, -10.0])
    ub = jnp.array([10.0, 10.0])

    @jax.jit
    def fold(c):
        G0 = jnp.zeros((0, n))
        h0 = jnp.zeros((0,))
        G_full, h_full = _expand_bounds(G0, h0, lb, ub, n)
        return G_full @ c - h_full

    print(fold(jnp.array([-1.0, 2.0])))
