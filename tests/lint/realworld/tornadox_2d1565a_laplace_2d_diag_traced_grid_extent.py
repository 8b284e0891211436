# source: https://github.com/pnkraemer/tornadox/blob/2d1565a841feb5465d03f8ba89ea12f9ffbb106a/tornadox/ivp.py
#   (commit "Diag Jacobian for FHN 2D"; the next commit, 6432ebc "Remove problematic jit",
#   drops the @jax.jit from _laplace_2d_diag)
# observed on jax 0.10.2 CPU: _laplace_2d_diag is jitted with no static argument, so the
#   Python int grid_extent that fhn_2d's df_diag passes (grid_extent=nx) arrives as a tracer
#   and jnp.ones(grid_extent - 2) raises TypeError (shapes must be concrete); the tile count
#   and pad width below it would be the same traced size (tolerated).
# gap: omnistaging
# added: the __main__ block, which makes the call fhn_2d's df_diag makes,
#   `_laplace_2d_diag(grid_extent=nx)` with nx = 50 (fhn_2d's default grid, dx=0.02 on the
#   unit square); the rest of ivp.py is left out.
import jax
import jax.numpy as jnp


@jax.jit
def _laplace_2d_diag(grid_extent):
    part = jnp.pad(
        -4.0 * jnp.ones(grid_extent - 2),  # expect: JIT404
        pad_width=1,
        mode="constant",
        constant_values=0.0,
    )
    main_diag = jnp.pad(  # tolerate: JIT404
        jnp.tile(part, grid_extent - 2),  # tolerate: JIT404
        pad_width=grid_extent,  # tolerate: JIT404
        mode="constant",
        constant_values=0.0,
    )
    return main_diag


if __name__ == "__main__":
    nx = 50
    dlaplace = _laplace_2d_diag(grid_extent=nx)
