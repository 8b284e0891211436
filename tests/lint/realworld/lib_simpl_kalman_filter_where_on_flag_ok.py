# source: https://github.com/TomGeorge1234/SIMPL/blob/3a1b473724b91c7ba1473eb6b5ba2fb60ec779ae/src/simpl/kalman.py
#   (_kalman_filter, _kalman_predict, _kalman_update, _calculate_S_matrix and
#   _calculate_K_matrix verbatim, docstrings shortened; _wrap_minuspi_pi and _TAU copied from
#   src/simpl/utils.py at the same commit. Added: the data and the __main__ block.)
# observed on jax 0.10.2 CPU: runs clean under jit: `is None` tests see Python None
#   (arguments left out), the angular flag is a traced bool used only through jnp.where,
#   `len(mu)` reads a static shape, and the boundary resets are jnp.where in the scan
#   body; calls with the flag True and False share one compilation (the call that leaves
#   the flag out compiles once more, a different signature).
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import jit

_TAU = 2 * jnp.pi


def _wrap_minuspi_pi(theta: jax.Array) -> jax.Array:
    """Wrap angles to [-pi, pi)."""
    return jnp.mod(theta + jnp.pi, _TAU) - jnp.pi


@jit
def _kalman_filter(
    Y: jax.Array,
    U: jax.Array,
    mu0: jax.Array,
    sigma0: jax.Array,
    F: jax.Array,
    B: jax.Array,
    Q: jax.Array,
    H: jax.Array,
    R: jax.Array,
    is_1D_angular: jax.Array | None = None,
    is_boundary: jax.Array | None = None,
    mu0_all: jax.Array | None = None,
    sigma0_all: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array]:
    """Kalman filters a batch of observation data, Y."""
    if is_1D_angular is None:
        is_1D_angular = jnp.array(False)
    T = Y.shape[0]
    dim_Z = mu0.shape[0]
    if is_boundary is None:
        is_boundary = jnp.zeros(T, dtype=bool)
        mu0_all = jnp.zeros((T, dim_Z))
        sigma0_all = jnp.zeros((T, dim_Z, dim_Z))

    def loop(carry, inputs):
        mu, sigma = carry
        Y, u, F, B, Q, H, R, is_bound, mu0_t, sigma0_t = inputs
        # Reset state at trial boundaries
        mu = jnp.where(is_bound, mu0_t, mu)
        sigma = jnp.where(is_bound, sigma0_t, sigma)
        mu_p, sigma_p = _kalman_predict(mu, sigma, F, Q, B, u)
        mu_p = jnp.where(is_1D_angular, _wrap_minuspi_pi(mu_p), mu_p)
        mu_u, sigma_u = _kalman_update(mu_p, sigma_p, H, R, Y, is_1D_angular=is_1D_angular)
        mu_u = jnp.where(is_1D_angular, _wrap_minuspi_pi(mu_u), mu_u)
        return (mu_u, sigma_u), (mu_u, sigma_u)  # carry, output

    _, (mu_all, sigma_all) = jax.lax.scan(loop, (mu0, sigma0), (Y, U, F, B, Q, H, R, is_boundary, mu0_all, sigma0_all))
    return jnp.stack(mu_all), jnp.stack(sigma_all)


def _kalman_predict(
    mu: jax.Array,
    sigma: jax.Array,
    F: jax.Array,
    Q: jax.Array,
    B: jax.Array,
    u: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """Predicts the next state of the system given the current state and the state transition matrix."""
    mu_next = F @ mu + B @ u
    sigma_next = F @ sigma @ F.T + Q
    return mu_next, sigma_next


def _kalman_update(
    mu: jax.Array,
    sigma: jax.Array,
    H: jax.Array,
    R: jax.Array,
    y: jax.Array,
    is_1D_angular: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array]:
    """Updates the state estimate given an observation."""
    if is_1D_angular is None:
        is_1D_angular = jnp.array(False)
    S = _calculate_S_matrix(sigma, H, R)
    y_hat = H @ mu
    K = _calculate_K_matrix(sigma, H, S)
    innovation = y - y_hat
    innovation = jnp.where(is_1D_angular, _wrap_minuspi_pi(innovation), innovation)
    mu_post = mu + K @ innovation
    sigma_post = (jnp.eye(len(mu)) - K @ H) @ sigma

    return mu_post, sigma_post


def _calculate_S_matrix(sigma: jax.Array, H: jax.Array, R: jax.Array) -> jax.Array:
    """Calculates the S matrix, S = H Sigma H^T + R, for the Kalman filter."""
    return H @ sigma @ H.T + R


def _calculate_K_matrix(sigma: jax.Array, H: jax.Array, S: jax.Array) -> jax.Array:
    """Calculates the Kalman gain matrix, K = Sigma H^T S^-1, for the Kalman filter."""
    return sigma @ H.T @ jnp.linalg.inv(S)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    T, D = 50, 2
    tile = lambda m: jnp.tile(m, (T, 1, 1))
    Z_true = jnp.cumsum(0.1 * jax.random.normal(jax.random.key(0), (T, D)), axis=0)
    Y = Z_true + 0.05 * jax.random.normal(jax.random.key(1), (T, D))
    args = (Y, jnp.zeros((T, 1)), jnp.zeros(D), jnp.eye(D), tile(jnp.eye(D)),
            jnp.zeros((T, D, 1)), tile(0.01 * jnp.eye(D)), tile(jnp.eye(D)),
            tile(0.0025 * jnp.eye(D)))
    mu, sigma = _kalman_filter(*args)
    mu_ang, _ = _kalman_filter(*args, is_1D_angular=jnp.array(True))
    mu_lin, _ = _kalman_filter(*args, is_1D_angular=jnp.array(False))
    assert mu.shape == (T, D) and sigma.shape == (T, D, D)
    assert float(jnp.abs(mu - Z_true).mean()) < 0.1
    assert jnp.allclose(mu, mu_lin, atol=1e-5)
    assert bool(jnp.all((mu_ang >= -jnp.pi) & (mu_ang < jnp.pi)))
    # defaulted flag (None) is a different signature from a passed array: two compilations
    assert compiles.count("jit(_kalman_filter)") == 2, compiles
