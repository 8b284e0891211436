# source: https://github.com/BigPython34/Generative-Neural-SDES-for-Market-Volatility/blob/654e8d6bc6baa87a7cbacf924e7fb4b5deaf5261/quant/calibration/rough_bergomi_joint.py
#   (sections 1 and 2 of the module: the jitted rBergomi simulation, the batched Monte Carlo
#   pricer and the ExtendedRoughBergomi model that the joint SPX-VIX calibration calls for every
#   (H, eta, rho) grid point; the long module docstring, the loss functions and the calibrator
#   after them are left out)
# observed on jax 0.10.2 CPU: runs correctly. eta, rho, r, dt and s0 reach _simulate_paths_jit as
#   arguments, not as static values or closed-over attributes, so models built for new (eta, rho)
#   values reuse the one compiled simulation (its cache holds one entry after three models), and
#   a model with another eta gives other paths; the VIX window is sliced outside any jit, and the
#   strike batch is priced by one jitted call.
# gap: stale-state-attributes
# added: get_cached_volterra_kernel and build_volterra_kernel_jax copied from engine/volterra.py of
#   the same commit; BlackScholes.implied_vol (quant/models/black_scholes.py, not in the repository)
#   replaced by a small bisection on the Black-Scholes price; the unused imports (time, optax.scale,
#   scipy.optimize.minimize, JointCalibrationResult, terminal_martingale_violation_loss) dropped;
#   the __main__ block.
import numpy as np
import jax
import jax.numpy as jnp
from scipy.stats import norm


# --- stand-ins: engine/volterra.py (copied) and quant.models.black_scholes.BlackScholes ---
def build_volterra_kernel_jax(n_steps: int, dt: float, H: jnp.ndarray):
    """
    Build RL-fBM Volterra kernel (differentiable in ``H``).

    A[j,k] = sqrt(2H) * dt^H / (H + 0.5) * ((j-k+1)^(H+0.5) - (j-k)^(H+0.5))
    for k <= j.
    """
    C = jnp.sqrt(2 * H) * dt ** H / (H + 0.5)
    alpha = H + 0.5

    j_idx = jnp.arange(n_steps)[:, None]
    k_idx = jnp.arange(n_steps)[None, :]
    lag = j_idx - k_idx
    mask = (lag >= 0).astype(jnp.float32)
    safe_lag = jnp.maximum(lag, 0)

    A = C * ((safe_lag + 1) ** alpha - safe_lag ** alpha) * mask
    var_wh = jnp.sum(A ** 2, axis=1)
    return A, var_wh


_VOL_KERNEL_CACHE: dict[tuple[int, float, float], tuple[jnp.ndarray, jnp.ndarray]] = {}


def get_cached_volterra_kernel(n_steps: int, H: float, dt: float):
    """Cache wrapper for scalar-parameter calibration loops."""
    key = (int(n_steps), round(float(H), 5), round(float(dt), 10))
    if key not in _VOL_KERNEL_CACHE:
        _VOL_KERNEL_CACHE[key] = build_volterra_kernel_jax(
            int(n_steps), float(dt), jnp.array(float(H), dtype=jnp.float32)
        )
    return _VOL_KERNEL_CACHE[key]


class BlackScholes:
    @staticmethod
    def price(S, K, T, r, sigma, opt_type='call'):
        d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
        d2 = d1 - sigma * np.sqrt(T)
        if opt_type == 'call':
            return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)
        return K * np.exp(-r * T) * norm.cdf(-d2) - S * norm.cdf(-d1)

    @staticmethod
    def implied_vol(price, S, K, T, r, opt_type='call'):
        lo, hi = 1e-4, 5.0
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            if BlackScholes.price(S, K, T, r, mid, opt_type) > price:
                hi = mid
            else:
                lo = mid
        return 0.5 * (lo + hi)
# --- end of stand-ins ---


# ═══════════════════════════════════════════════════════════════════
# 1. JAX-ACCELERATED KERNELS
# ═══════════════════════════════════════════════════════════════════


# ─────────────────────────────────────────────────────────
# JIT-compiled simulation & pricing
# ─────────────────────────────────────────────────────────

@jax.jit
def _simulate_paths_jit(Z, Z_perp, A, var_wh, xi0_arr,
                        eta, rho, r, dt, s0):
    """
    JIT-compiled joint (S, V) simulation under rBergomi.

    V_t = ξ₀(t) · exp(η·Ŵᴴ_t - ½η²·Var[Ŵᴴ_t])
    dS = S·[r dt + √V_{t-1}·(ρ dW + √(1-ρ²) dW⊥)]

    Uses previsible variance V_{k-1} (Bayer et al. 2016).

    Parameters
    ----------
    Z, Z_perp : (n_paths, n_steps) iid standard normals
    A          : (n_steps, n_steps) Volterra kernel
    var_wh     : (n_steps,) variance of Ŵᴴ at each step
    xi0_arr    : (n_steps,) forward variance curve
    eta, rho, r, dt, s0 : model scalars

    Returns
    -------
    (spot_paths, var_paths) : shapes (n_paths, n_steps+1) and (n_paths, n_steps)
    """
    n_paths = Z.shape[0]

    # Volterra fBM
    dW = Z * jnp.sqrt(dt)
    Wh = Z @ A.T  # (n_paths, n_steps)

    # Variance process
    var_paths = xi0_arr * jnp.exp(eta * Wh - 0.5 * eta ** 2 * var_wh)

    # Correlated spot noise
    dW_perp = Z_perp * jnp.sqrt(dt)
    dW_spot = rho * dW + jnp.sqrt(1.0 - rho ** 2) * dW_perp

    # Previsible Euler: V_{k-1}
    v0_col = jnp.full((n_paths, 1), xi0_arr[0])
    var_prev = jnp.concatenate([v0_col, var_paths[:, :-1]], axis=1)

    # Clamp variance to avoid sqrt of negative (numerical safety)
    var_prev_safe = jnp.maximum(var_prev, 1e-16)

    log_ret = (r - 0.5 * var_prev_safe) * dt + jnp.sqrt(var_prev_safe) * dW_spot
    log_s = jnp.cumsum(log_ret, axis=1)
    spot_paths = s0 * jnp.exp(log_s)

    # Prepend S₀
    s0_col = jnp.full((n_paths, 1), s0)
    spot_paths = jnp.concatenate([s0_col, spot_paths], axis=1)

    return spot_paths, var_paths


@jax.jit
def _mc_prices_batch(S_T, strikes, is_call, discount):
    """
    Vectorized MC option pricing — all strikes simultaneously.

    Replaces the per-strike Python loop with a single JAX op.

    S_T      : (n_paths,)
    strikes  : (n_strikes,)
    is_call  : (n_strikes,) boolean mask (1.0 = call, 0.0 = put)
    discount : scalar exp(-rT)

    Returns  : (n_strikes,) MC prices
    """
    # Payoff matrices: (n_paths, n_strikes)
    call_payoff = jnp.maximum(S_T[:, None] - strikes[None, :], 0.0)
    put_payoff = jnp.maximum(strikes[None, :] - S_T[:, None], 0.0)

    payoff = jnp.where(is_call[None, :], call_payoff, put_payoff)
    prices = discount * jnp.mean(payoff, axis=0)
    return prices


def _compute_vix_from_window(v_window, dt):
    n_window = v_window.shape[1]
    weights = jnp.ones(n_window) * dt
    weights = weights.at[0].set(weights[0] * 0.5)
    weights = weights.at[-1].set(weights[-1] * 0.5)
    integrated = jnp.sum(v_window * weights[None, :], axis=1)
    actual_tau = jnp.maximum(n_window * dt, 1e-10)
    vix_sq = integrated / actual_tau                     # E[VIX²] by path
    return 100.0 * jnp.sqrt(jnp.mean(vix_sq))    # E[VIX] ≈ √(E[VIX²]) with convexity adjustment

# ═══════════════════════════════════════════════════════════════════
# 2. EXTENDED ROUGH BERGOMI MODEL
# ═══════════════════════════════════════════════════════════════════

class ExtendedRoughBergomi:
    """
    rBergomi with forward variance curve ξ₀(t) and JAX acceleration.

    Key features vs core.bergomi.RoughBergomiModel:
      1. Piecewise-constant ξ₀(t) (not scalar ξ₀)
      2. VIX pricing from simulated variance paths
      3. Volterra kernel cache (shared across H-grid points)
      4. JIT-compiled simulation & batched option pricing
      5. Antithetic variates for variance reduction
    """

    def __init__(self, H, eta, rho, xi0_curve, T_max, n_steps, r=0.05):
        self.H = H
        self.eta = eta
        self.rho = rho
        self.T_max = T_max
        self.n_steps = n_steps
        self.r = r
        self.dt = T_max / n_steps

        # Time grid: t₁, t₂, ..., t_N (excludes t₀=0)
        self.time_grid = np.linspace(0, T_max, n_steps + 1)[1:]

        # Forward variance curve → JAX array (n_steps,)
        if callable(xi0_curve):
            self._xi0 = jnp.array([xi0_curve(t) for t in self.time_grid])
        elif isinstance(xi0_curve, (int, float)):
            self._xi0 = jnp.full(n_steps, float(xi0_curve))
        else:
            xi_arr = np.asarray(xi0_curve, dtype=float)
            if len(xi_arr) >= n_steps:
                self._xi0 = jnp.array(xi_arr[:n_steps])
            else:
                # Pad with last value if curve is shorter than grid
                padded = np.full(n_steps, xi_arr[-1])
                padded[:len(xi_arr)] = xi_arr
                self._xi0 = jnp.array(padded)

        # Volterra kernel — cached per (H, n_steps, dt)
        self._A, self._var_wh = get_cached_volterra_kernel(n_steps, H, self.dt)

    def simulate(self, n_paths, s0=100.0, key=None, antithetic=True):
        """
        Joint (S, V) simulation with antithetic variates.

        Antithetic sampling: generates N/2 paths from Z, then mirrors
        to -Z, cutting MC variance roughly in half for monotone payoffs.

        Returns dict with spot_paths, var_paths, dt, n_paths.
        """
        if key is None:
            key = jax.random.PRNGKey(42)
        key_z, key_perp = jax.random.split(key)

        n_half = n_paths // 2 if antithetic else n_paths

        Z = jax.random.normal(key_z, (n_half, self.n_steps))
        Z_perp = jax.random.normal(key_perp, (n_half, self.n_steps))

        if antithetic:
            Z = jnp.concatenate([Z, -Z], axis=0)
            Z_perp = jnp.concatenate([Z_perp, -Z_perp], axis=0)

        spot_paths, var_paths = _simulate_paths_jit(
            Z, Z_perp, self._A, self._var_wh, self._xi0,
            self.eta, self.rho, self.r, self.dt, s0,
        )

        return {
            'spot_paths': spot_paths,
            'var_paths': var_paths,
            'dt': self.dt,
            'n_paths': int(spot_paths.shape[0]),
        }

    def compute_vix(self, var_paths, tau_days):
        """
        Compute E^Q[VIX(τ)] from simulated variance paths.

        VIX²(τ) = (1/τ) ∫₀^τ V_s ds

        Parameters
        ----------
        var_paths : (n_paths, n_steps) JAX array
        tau_days  : VIX window in calendar days

        Returns
        -------
        scalar : mean VIX level (e.g. 18.5 for 18.5%)
        """
        tau = tau_days / 365.0
        n_in_tau = max(1, min(int(round(tau / self.dt)), var_paths.shape[1]))

        # Slice outside JIT (shape change triggers recompilation otherwise)
        v_window = var_paths[:, :n_in_tau]

        # Call JIT-compiled trapezoidal integration
        return float(_compute_vix_from_window(v_window, self.dt))

    def price_vix_term_structure(self, var_paths, tau_days_list):
        """Price VIX at multiple tenors. Returns {tau_days: model_vix}."""
        return {tau: self.compute_vix(var_paths, tau) for tau in tau_days_list}

    def price_spx_options(self, spot_paths, strikes, T, option_types, s0):
        """
        Price SPX options and extract implied vols.

        MC pricing is JAX-batched (all strikes at once).
        IV extraction uses scipy (not JIT-able but fast per-option).

        Returns (model_ivs, mc_prices) as numpy arrays.
        """
        # Find time index closest to T
        t_idx = int(np.argmin(np.abs(self.time_grid - T)))
        S_T = spot_paths[:, t_idx + 1]  # +1 because col 0 = S₀

        discount = float(np.exp(-self.r * T))
        is_call = jnp.array([1.0 if ot == 'call' else 0.0 for ot in option_types])
        strikes_jax = jnp.array(strikes, dtype=jnp.float32)

        # Batched MC pricing — all strikes in one JAX op
        mc_prices = _mc_prices_batch(S_T, strikes_jax, is_call, discount)
        mc_prices_np = np.array(mc_prices)

        # IV extraction (NumPy/scipy — still fast: ~0.1ms per option)
        model_ivs = np.full(len(strikes), np.nan)
        for i, (price, K, opt_type) in enumerate(zip(mc_prices_np, strikes, option_types)):
            if price > 1e-8:
                model_ivs[i] = BlackScholes.implied_vol(
                    float(price), s0, float(K), T, self.r, opt_type
                )

        return model_ivs, mc_prices_np


if __name__ == "__main__":
    strikes = np.array([90.0, 95.0, 100.0, 105.0, 110.0])
    types = ['put', 'put', 'call', 'call', 'call']
    for H, eta, rho in [(0.1, 1.9, -0.9), (0.1, 1.5, -0.7), (0.1, 2.2, -0.8)]:
        model = ExtendedRoughBergomi(H, eta, rho, xi0_curve=0.04, T_max=0.25, n_steps=32, r=0.04)
        sim = model.simulate(2000, s0=100.0)
        assert sim['spot_paths'].shape == (2000, 33) and sim['var_paths'].shape == (2000, 32)
        vix = model.price_vix_term_structure(sim['var_paths'], [9, 30, 60])
        assert all(5.0 < v < 60.0 for v in vix.values()), vix
        ivs, prices = model.price_spx_options(sim['spot_paths'], strikes, 0.25, types, 100.0)
        assert np.all(np.isfinite(ivs)) and np.all(prices > 0), (ivs, prices)
    # one compiled simulation and one compiled pricer for all three (eta, rho) points
    assert _simulate_paths_jit._cache_size() == 1
    assert _mc_prices_batch._cache_size() == 1
    # the result follows eta: a fresh model with another eta gives other paths from the same key
    a = ExtendedRoughBergomi(0.1, 1.0, -0.7, 0.04, 0.25, 32).simulate(200)['var_paths']
    b = ExtendedRoughBergomi(0.1, 2.0, -0.7, 0.04, 0.25, 32).simulate(200)['var_paths']
    assert not np.allclose(np.asarray(a), np.asarray(b))
