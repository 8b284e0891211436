# source: https://github.com/meliao/jaxhps/blob/3c401a9cf3ba436b92d528ea4c285ead7f39de10/src/jaxhps/quadrature/_interpolation.py (fixed in https://github.com/meliao/jaxhps/pull/11, "the compilation time could be quite slow (tens of seconds)")
# observed on jax 0.10.2 CPU: the Python loops over the point counts are unrolled at trace time; the jaxpr grows with p*p and n*p (about 3 equations per element update) and compile time grows with it
# gap: other
# observed: line 40 the p*p weight loop is unrolled into p*(p-1) element updates in the jaxpr
# observed: line 56 the n*p matrix loop is unrolled into n*p element updates; jaxpr 638 equations at p=4,n=8 and 2514 at p=8,n=16 (10010 and a 13 s compile at p=16,n=32)
# (added: the __main__ block with Chebyshev input points and the jaxpr-size / compile-time check; only barycentric_lagrange_interpolation_matrix_1D of the file is kept)
import time

import jax.numpy as jnp
import jax


jax.config.update("jax_enable_x64", True)

EPS = jnp.finfo(jnp.float64).eps


@jax.jit
def barycentric_lagrange_interpolation_matrix_1D(
    from_pts: jax.Array, to_pts: jax.Array
) -> jax.Array:
    """
    Generates a Lagrange 1D polynomial interpolation matrix, which interpolates
    from the points in from_pts to the points in to_pts.

    This function uses the barycentric formula for Lagrange interpolation, from [1]_

    Args:
        from_pts (jax.Array): Has shape (n,)
        to_pts (jax.Array): Has shape (p,)

    Returns:
        jax.Array: Has shape (p,n)
    """
    p = from_pts.shape[0]
    n = to_pts.shape[0]

    # Compute the inverses of the Barycentric weights
    w = jnp.ones(p, dtype=jnp.float64)
    for j in range(p):  # expect: JIT303
        for k in range(p):
            if j != k:
                w = w.at[j].mul(from_pts[j] - from_pts[k])

    # print("barycentric_lagrange_interpolation_matrix: w", w)

    # Normalizing factor is sum_j w_j / (x - x_j)
    norm_factors = jnp.zeros(n, dtype=jnp.float64)
    for i in range(p):
        norm_factors += 1 / (w[i] * (to_pts - from_pts[i]))

        # print("barycentric_lagrange_interpolation_matrix: norm_factors", norm_factors)

    # Compute the matrix
    matrix = jnp.zeros((n, p), dtype=jnp.float64)
    for i in range(n):  # expect: JIT303
        for j in range(p):
            matrix = matrix.at[i, j].set(
                1 / ((to_pts[i] - from_pts[j]) * w[j] * norm_factors[i])
            )

    # Check if any of the source and target points overlap
    # This code is semantically the same as what comes after.
    # The code below is vectorized and is able to be compiled because it does not
    # use the conditionals on to_pts and from_pts.

    # for i in range(n):
    #     for j in range(p):
    #         if to_pts[i] == from_pts[j]:
    #             matrix = matrix.at[i, :].set(0)
    #             matrix = matrix.at[i, j].set(1)

    # Create a boolean mask for matching points
    matches = to_pts[:, None] == from_pts[None, :]  # Shape: (n, p)

    # Create row masks for any matching points
    has_match = matches.any(axis=1)  # Shape: (n,)

    # Update the matrix
    matrix = jnp.where(
        has_match[:, None],  # Broadcasting to shape (n, p)
        jnp.where(
            matches,
            1.0,  # Where points match
            0.0,  # Where points don't match but row has a match
        ),
        matrix,  # Keep original values where row has no matches
    )

    return matrix


if __name__ == "__main__":
    def cheb(n):
        return jnp.cos(jnp.flipud(jnp.pi * jnp.arange(n, dtype=jnp.float64) / (n - 1)))

    sizes = {}
    for p, n in [(4, 8), (8, 16)]:
        from_pts, to_pts = cheb(p), cheb(n) * 0.9
        jaxpr = jax.make_jaxpr(barycentric_lagrange_interpolation_matrix_1D)(from_pts, to_pts)
        n_eqns = len(jaxpr.jaxpr.eqns[0].params["jaxpr"].jaxpr.eqns)
        t0 = time.perf_counter()
        barycentric_lagrange_interpolation_matrix_1D.lower(from_pts, to_pts).compile()
        t_compile = time.perf_counter() - t0
        sizes[p] = n_eqns
        print(f"p={p:2d} n={n:2d}: {n_eqns} jaxpr equations, compile {t_compile:.2f}s")
    # the traced program grows with p*p + n*p: the loops are unrolled
    assert sizes[8] > 3.5 * sizes[4], sizes
    assert sizes[8] > 3 * (8 * 7 + 16 * 8), sizes
