# source: https://github.com/Exclosure/anomaly/blob/c64b8bf1dd15071ab8247d32be2685ca23153979/anomaly/kepler/conversions.py
#   (Keplerian anomaly conversions of a small orbital-mechanics library: Kepler's equation
#   solved by a hand-written Newton iteration in lax.while_loop, differentiated through a
#   custom_jvp built on the implicit function theorem)
# observed on jax 0.10.2 CPU: runs clean under jit, vmap and grad; the static branches on
#   `eps is None` and `x0.dtype` are decided at trace time, the loop condition is traced
#   inside lax.while_loop, and grad of mean_to_eccentric_anomaly matches the analytic
#   derivative 1 / (1 - e cos E). Inlined from the same commit: newton_1d (with its
#   constants) from anomaly/optimizers/newton.py and clip_to_rads (with TWOPI) from
#   anomaly/utils.py, in place of the package imports. Added: the __main__ block (its derivative check, first written as a new jit(grad(...)) per element, which traces again each time, jits the vmapped grad once).
# gap: other
from functools import wraps
from typing import Callable

import jax
import jax.numpy as jnp
from jax import lax
from jax.lax import stop_gradient

# --- from anomaly/utils.py ---
TWOPI = 6.283185307179586


def clip_to_rads(fun: Callable[..., jnp.ndarray]) -> Callable[..., jnp.ndarray]:
    """Clips the output of a function to [0, 2*pi].

    Used when the final call is a Newton-Raphson iteration
    that may result in out-of-bounds radians.
    """

    @wraps(fun)
    def wrapper(*args, **kwargs):
        return jnp.remainder(fun(*args, **kwargs), TWOPI)

    return wrapper


# --- from anomaly/optimizers/newton.py ---
MAX_NEWTON_RAPHSON_ITERATIONS = 100
NEWTON_RAPHSON_EPS = 1e-9
NEWTON_RAPHSON_EPS_64 = 1e-16
def newton_1d(f, x0, eps=None, max_iter=100):
    """Simpler implementation of Newton-Raphson for 1d problems."""
    # pylint: disable=invalid-name
    if (eps is None) and (x0.dtype == jnp.float64):
        _eps = NEWTON_RAPHSON_EPS_64
    elif eps is None:
        _eps = NEWTON_RAPHSON_EPS
    else:
        _eps = eps

    def cond(state):
        it, _, fx, dfx = state
        return (jnp.abs(fx) > _eps) & (it < max_iter) & (jnp.abs(dfx) > _eps)

    def body(state):
        it, x0, fx0, dfx0 = state
        x = x0 - fx0 / dfx0
        fx, dfx = jax.value_and_grad(f)(x)
        return (it + 1, x, fx, dfx)

    fx0, dfx0 = jax.value_and_grad(f)(x0)
    initial_state = (0, x0, fx0, dfx0)
    final_state = lax.while_loop(cond, body, initial_state)
    return final_state[1]


# --- anomaly/kepler/conversions.py ---
# Newton steps here converge in very few iterations
_MAX_NEWTON_ITERATIONS = 12


@jax.custom_jvp
@clip_to_rads
def mean_to_eccentric_anomaly(
    mean_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Convert mean anomaly to eccentric anomaly.

    Parameters:
      mean_anomaly: The mean anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The eccentric anomaly.
    """
    M, e = mean_anomaly, eccentricity
    eccentric_anomaly_start = stop_gradient(
        _mean_to_eccentric_anomaly_approx(
            mean_anomaly=M,
            eccentricity=e,
        )
    )
    implicit_ea = lambda E: _kepler_implicit(
        eccentric_anomaly=E, mean_anomaly=M, eccentricity=e
    )
    return newton_1d(
        implicit_ea, eccentric_anomaly_start, max_iter=_MAX_NEWTON_ITERATIONS
    )


@mean_to_eccentric_anomaly.defjvp
def _mean_to_eccentric_anomaly_jvp(primals, tangents):
    """Compute the JVP using the implicit function theorem."""
    M, e = primals
    tM, te = tangents
    E = mean_to_eccentric_anomaly(M, e)
    (dM, dE, de) = jax.grad(_kepler_implicit, argnums=(0, 1, 2))(M, E, e)
    return E, -(dM * tM + de * te) / dE


@clip_to_rads
def mean_to_true_anomaly(
    mean_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Convert mean anomaly to true anomaly.

    Parameters:
      mean_anomaly: The mean anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The true anomaly.
    """
    M, e = mean_anomaly, eccentricity
    E = mean_to_eccentric_anomaly(mean_anomaly=M, eccentricity=e)
    return eccentric_to_true_anomaly(E, e)


@clip_to_rads
def true_to_mean_anomaly(
    true_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Convert true anomaly to mean anomaly.

    Parameters:
      true_anomaly: The true anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The mean anomaly.
    """
    nu, e = true_anomaly, eccentricity
    E = true_to_eccentric_anomaly(true_anomaly=nu, eccentricity=e)
    return eccentric_to_mean_anomaly(E, e)


@clip_to_rads
def eccentric_to_true_anomaly(
    eccentric_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Convert eccentric anomaly to true anomaly.

    Parameters:
      eccentric_anomaly: The eccentric anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The true anomaly.
    """
    E, e = eccentric_anomaly, eccentricity
    x = jnp.cos(E) - e
    y = jnp.sin(E) * jnp.sqrt(1 - e ** 2)
    return jnp.arctan2(y, x)


@clip_to_rads
def true_to_eccentric_anomaly(
    true_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Convert true anomaly to eccentric anomaly.

    Parameters:
      true_anomaly: The true anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The eccentric anomaly.
    """
    nu, e = true_anomaly, eccentricity
    x = e + jnp.cos(nu)
    y = jnp.sin(nu) * jnp.sqrt(1 - e ** 2)
    return jnp.arctan2(y, x)


@clip_to_rads
def eccentric_to_mean_anomaly(
    eccentric_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Convert eccentric anomaly to mean anomaly.

    Parameters:
      eccentric_anomaly: The eccentric anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The mean anomaly.
    """
    E, e = eccentric_anomaly, eccentricity
    return E - e * jnp.sin(E)


def _kepler_implicit(
    mean_anomaly: jnp.ndarray,
    eccentric_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Compute the Kepler equation in implicit form.

    The value of the Kepler equation is zero if and only if
    the three parameters correspond to a valid triple.

    NOTE: Units of anomalies are radians.
    """
    M, E, e = mean_anomaly, eccentric_anomaly, eccentricity
    return M - E + e * jnp.sin(E)


@clip_to_rads
def _mean_to_eccentric_anomaly_approx(
    mean_anomaly: jnp.ndarray,
    eccentricity: jnp.ndarray,
) -> jnp.ndarray:
    """Approximate the value fort the true anomaly.

    Parameters:
      mean_anomaly: The mean anomaly (radians).
      eccentricity: Eccentricity (between zero and one).

    Returns:
      The approximate eccentric anomaly.
    """
    M, e = mean_anomaly, eccentricity
    # From 1st order Taylor series approximation around E = M
    # cf. Vallado, p. 75
    return M + e * jnp.sign(jnp.pi - M)


if __name__ == "__main__":
    anomaly = jnp.linspace(0.1, 6.0, 16)
    eccentricity = jnp.linspace(0.0, 0.8, 16)
    E = jax.vmap(jax.jit(mean_to_eccentric_anomaly), in_axes=(0, 0))(anomaly, eccentricity)
    M = jax.vmap(jax.jit(eccentric_to_mean_anomaly), in_axes=(0, 0))(E, eccentricity)
    assert jnp.allclose(M, anomaly, atol=1e-4), (M, anomaly)
    nu = jax.vmap(jax.jit(mean_to_true_anomaly))(anomaly, eccentricity)
    back = jax.vmap(jax.jit(true_to_mean_anomaly))(nu, eccentricity)
    assert jnp.allclose(back, anomaly, atol=1e-4)
    dE = jax.jit(jax.vmap(jax.grad(mean_to_eccentric_anomaly)))(anomaly, eccentricity)
    assert jnp.allclose(dE, 1.0 / (1.0 - eccentricity * jnp.cos(E)), rtol=1e-3)

