# source: https://github.com/meliao/jaxhps/blob/3fe8128e94d044251174e2633218de653b0a5ec4/src/jaxhps/quadrature/_interpolation.py (the vectorized version from https://github.com/meliao/jaxhps/pull/11)
# observed on jax 0.10.2 CPU: runs clean; the jaxpr size no longer depends on the number of points
# gap: other
# (added: the __main__ block with Chebyshev input points; only barycentric_lagrange_interpolation_matrix_1D of the file is kept)
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
    # n = to_pts.shape[0]

    # Compute the inverses of the Barycentric weights
    # (2025-07-01, OOT) Vectorized version
    from_di = jnp.arange(p)  # for use as diagonal indices for from_pts_x
    tmp_from_dist = from_pts[:, jnp.newaxis] - from_pts[jnp.newaxis, :]
    tmp_from_dist = tmp_from_dist.at[from_di, from_di].set(1)
    w = jnp.prod(tmp_from_dist, axis=0)
    # # Original version
    # w = jnp.ones(p, dtype=jnp.float64)
    # for j in range(p):
    #     for k in range(p):
    #         if j != k:
    #             w = w.at[j].mul(from_pts[j] - from_pts[k])

    # print("barycentric_lagrange_interpolation_matrix: w", w)

    # Normalizing factor is sum_j w_j / (x - x_j)
    # (2025-07-01, OOT) Vectorized version
    norm_factors = jnp.sum(
        1
        / (
            w[:, jnp.newaxis]
            * (to_pts[jnp.newaxis, :] - from_pts[:, jnp.newaxis])
        ),
        axis=0,
    )
    # # Original version
    # norm_factors_ref = jnp.zeros(n, dtype=jnp.float64)
    # for i in range(p):
    #     norm_factors_ref += 1 / (w[i] * (to_pts - from_pts[i]))
    # print(jnp.all(norm_factors_ref==norm_factors))

    # print("barycentric_lagrange_interpolation_matrix: norm_factors", norm_factors)

    # Compute the matrix
    # (2025-07-01, OOT) Vectorized version
    matrix = 1 / (
        (to_pts[:, jnp.newaxis] - from_pts[jnp.newaxis, :])
        * w[jnp.newaxis, :]
        * norm_factors[:, jnp.newaxis]
    )
    # # Original version
    # matrix_ref = jnp.zeros((n, p), dtype=jnp.float64)
    # for i in range(n):
    #     for j in range(p):
    #         matrix_ref = matrix_ref.at[i, j].set(
    #             1 / ((to_pts[i] - from_pts[j]) * w[j] * norm_factors[i])
    #         )
    # print(jnp.all(matrix==matrix_ref))

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
    for p, n in [(4, 8), (16, 32)]:
        from_pts, to_pts = cheb(p), cheb(n) * 0.9
        jaxpr = jax.make_jaxpr(barycentric_lagrange_interpolation_matrix_1D)(from_pts, to_pts)
        sizes[p] = len(jaxpr.jaxpr.eqns[0].params["jaxpr"].jaxpr.eqns)
        M = barycentric_lagrange_interpolation_matrix_1D(from_pts, to_pts)
        # interpolating a polynomial of degree < p is exact
        f = lambda x: x**3 - 2 * x + 1
        assert jnp.allclose(M @ f(from_pts), f(to_pts)), (p, n)
    assert sizes[4] == sizes[16], sizes
    print("jaxpr equations:", sizes)
