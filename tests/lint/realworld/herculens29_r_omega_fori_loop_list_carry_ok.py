# source: https://github.com/Herculens/herculens/blob/f4069b6fc8e07ccd0c65ca1ed484cbe626a9797b/herculens/Util/jax_util.py
#   (R_omega and omega_real verbatim, docstrings shortened, after https://github.com/Herculens/herculens/pull/29
#   "changes the R_omega function to use fori_loop". The __main__ block calls both the way
#   EPL.derivatives does in herculens/MassModel/Profiles/epl.py at the same commit, nmax=20,
#   under jax.jit. Added: the data and the __main__ block.)
# observed on jax 0.10.2 CPU: runs clean: `val[1] = ...` and `val[0] += ...` assign into the
#   Python list that fori_loop hands the body as its carry, not into a JAX array; the jitted
#   body_fun nested in R_omega is traced inside the jitted caller; the complex and the real
#   implementations give the same deflection, and repeated calls reuse one compilation.
# gap: exemption-vs-JAX
import jax.numpy as jnp
from jax import jit, lax


def R_omega(z, t, q, nmax):
    """Angular dependency of the deflection angle in the EPL lens profile.

    The computation follows Eqs. (22)-(29) in Tessore & Metcalf (2015), where
    z = R * e^(i * phi) is a position vector in the lens plane,
    t = gamma - 1 is the logarithmic slope of the profile, and
    q is the axis ratio.
    """
    # Compute constant factors
    f = (1. - q) / (1. + q)
    ei2phi = z / z.conjugate()
    # Set the first term of the series
    omega_i = z  # jnp.array(np.copy(z))  # Avoid overwriting z ?
    partial_sum = omega_i

    @jit
    def body_fun(i, val):
        # Currrent term in the series is proportional to the previous
        ratio = (2. * i + t - 2.) / (2. * i - t + 2.)
        val[1] = -f * ei2phi * ratio * val[1]
        # Adds the current term to the partial sum
        val[0] += val[1]
        return val

    return lax.fori_loop(1, nmax, body_fun, [partial_sum, omega_i])[0]


def omega_real(x, y, t, q, nmax):
    """Angular dependency of the deflection angle in the EPL lens profile.

    The computation follows Eqs. (31)-(32) in Tessore & Metcalf (2015), where
    x, y are coordinates in the lens plane,
    t = gamma - 1 is the logarithmic slope of the profile, and
    q is the axis ratio.
    """
    # Compute constant factors
    phi = jnp.arctan2(y, q * x)
    f = (1. - q) / (1. + q)
    Cs, Ss = jnp.cos(phi), jnp.sin(phi)
    Cs2, Ss2 = jnp.cos(2 * phi), jnp.sin(2 * phi)
    def update(n, val):
        prefac = -f * (2. * n - (2. - t)) / (2. * n + (2. - t))
        last_x, last_y, fx, fy = val
        last_x, last_y = prefac * (Cs2 * last_x - Ss2 * last_y), prefac * (
                Ss2 * last_x + Cs2 * last_y
        )
        fx += last_x
        fy += last_y
        return last_x, last_y, fx, fy
    _, _, fx, fy = lax.fori_loop(1, nmax, update, (Cs, Ss, Cs, Ss))
    return fx, fy


if __name__ == "__main__":
    import jax
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    @jax.jit
    def deflection_complex(x, y, b, t, q):  # EPL.derivatives, complex branch
        z = q * x + y * 1j
        R = jnp.abs(z)
        alpha = 2. / (1. + q) * (b / R)**t * R_omega(z, t, q, nmax=20)
        return alpha.real, alpha.imag

    @jax.jit
    def deflection_real(x, y, b, t, q):  # EPL.derivatives, real branch
        R = jnp.hypot(q * x, y)
        f_real, f_imag = omega_real(x, y, t, q, nmax=20)
        prefac = (2 * b) / (1 + q) * ((b / R) ** (t - 1))
        return prefac * f_real, prefac * f_imag

    x, y = jnp.meshgrid(jnp.linspace(-2., 2., 8), jnp.linspace(-1.5, 2.5, 8))
    for t, q in [(1.0, 0.8), (0.9, 0.6), (1.1, 0.7)]:
        ax_c, ay_c = deflection_complex(x, y, 1.2, t, q)
        ax_r, ay_r = deflection_real(x, y, 1.2, t, q)
        assert jnp.allclose(ax_c, ax_r, atol=1e-4) and jnp.allclose(ay_c, ay_r, atol=1e-4)
    assert compiles.count("jit(deflection_complex)") == 1, compiles
