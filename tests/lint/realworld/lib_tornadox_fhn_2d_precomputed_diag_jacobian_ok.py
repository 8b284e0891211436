# source: https://github.com/pnkraemer/tornadox/blob/27b88d36bcd2b261266103c12612e9e8a95e8f56/tornadox/ivp.py
#   (fhn_2d as it ends up after "Remove problematic jit" and "Precompute diagonal jacobian":
#   the diagonal of the Laplacian is built from the Python ints nx, ny outside jit)
# observed on jax 0.10.2 CPU: the jitted vector field, its jitted jacfwd and the jitted diagonal
#   Jacobian all run; the diagonal agrees with the diagonal of the full Jacobian.
# gap: flow-sensitive
# added: the __main__ block; the other IVPs of ivp.py are left out.
"""Initial value problems and examples."""

from collections import namedtuple

import jax
import jax.numpy as jnp
from jax.scipy.signal import convolve2d


class InitialValueProblem(
    namedtuple(
        "_InitialValueProblem", "f t0 tmax y0 df df_diagonal", defaults=(None, None)
    )
):
    """Initial value problems."""

    @property
    def dimension(self):
        if jnp.isscalar(self.y0):
            return 1
        return self.y0.shape[0]

    @property
    def t_span(self):
        return self.t0, self.tmax



def fhn_2d(
    t0=0.0,
    tmax=20.0,
    y0=None,
    bbox=None,
    dx=0.02,
    a=2.8e-4,
    b=5e-3,
    k=-0.005,
    tau=0.1,
    prng_key=None,
):
    """Source: https://ipython-books.github.io/124-simulating-a-partial-differential-equation-reaction-diffusion-systems-and-turing-patterns/"""

    if bbox is None:
        bbox = [[0.0, 0.0], [1.0, 1.0]]

    ny, nx = int((bbox[1][0] - bbox[0][0]) / dx), int((bbox[1][1] - bbox[0][1]) / dx)
    if ny != nx:
        raise ValueError(
            f"The diagonal Jacobian only works for quadratic spatial grids. Got {bbox}."
        )

    if y0 is None:
        prng_key = prng_key or jax.random.PRNGKey(seed=2)
        y0 = jax.random.uniform(prng_key, shape=(2 * ny * nx,))

    @jax.jit
    def fhn_2d(_, x):
        u, v = jnp.split(x, 2)
        du = _laplace_2d(u.reshape((nx, ny)), dx=dx).reshape((-1,))
        dv = _laplace_2d(v.reshape((nx, ny)), dx=dx).reshape((-1,))
        u_new = a * du + u - u**3 - v + k
        v_new = (b * dv + u - v) / tau
        return jnp.concatenate((u_new, v_new))

    dfhn_2d = jax.jit(jax.jacfwd(fhn_2d, argnums=1))

    # The diagonal entries of the Jacobian are iether
    # 2. (for corner nodes), 3. (for boundary nodes), or 4. (for interior nodes)
    df_diag_interior = 4.0 * jnp.ones((nx - 2, ny - 2))
    df_diag_with_bdry = jnp.pad(
        df_diag_interior, pad_width=1, mode="constant", constant_values=3.0
    )
    df_diag = (
        df_diag_with_bdry.at[0, 0]
        .set(2.0)
        .at[0, -1]
        .set(2.0)
        .at[-1, 0]
        .set(2.0)
        .at[-1, -1]
        .set(2.0)
    )
    dlaplace = -1.0 * df_diag.reshape((-1,)) / (dx**2)

    @jax.jit
    def df_diag(_, x):

        u, v = jnp.split(x, 2)

        d_u = a * dlaplace + 1.0 - 3.0 * u**2
        d_v = (b * dlaplace - 1.0) / tau
        return jnp.concatenate((d_u, d_v))

    return InitialValueProblem(
        f=fhn_2d,
        t0=t0,
        tmax=tmax,
        y0=y0,
        df=dfhn_2d,
        df_diagonal=df_diag,
    )


@jax.jit
def _laplace_2d(grid, dx):
    """2D Laplace operator on a vectorized 2d grid."""

    # Set the boundary values to the nearest interior node
    # This enforces Neumann conditions.
    padded_grid = jnp.pad(grid, pad_width=1, mode="edge")

    # Laplacian via convolve2d()
    kernel = (
        1
        / (dx**2)
        * jnp.array(
            [
                [0.0, 1.0, 0.0],
                [1.0, -4.0, 1.0],
                [0.0, 1.0, 0.0],
            ]
        )
    )
    grid = convolve2d(padded_grid, kernel, mode="same")
    return grid[1:-1, 1:-1]


if __name__ == "__main__":
    ivp = fhn_2d(dx=0.1)
    assert ivp.dimension == 2 * 10 * 10
    fx = ivp.f(ivp.t0, ivp.y0)
    jac = ivp.df(ivp.t0, ivp.y0)
    diag = ivp.df_diagonal(ivp.t0, ivp.y0)
    assert fx.shape == (200,) and jac.shape == (200, 200)
    assert jnp.allclose(jnp.diag(jac), diag, rtol=1e-4, atol=1e-3)
    # a second point reuses the compiled functions
    y1 = ivp.y0 + 0.1
    assert jnp.allclose(jnp.diag(ivp.df(ivp.t0, y1)), ivp.df_diagonal(ivp.t0, y1), rtol=1e-4, atol=1e-3)
