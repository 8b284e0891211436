# source: https://github.com/BigPython34/Generative-Neural-SDES-for-Market-Volatility/blob/654e8d6bc6baa87a7cbacf924e7fb4b5deaf5261/quant/pricers/pricing.py
#   (a personal research project: a neural-SDE volatility generator compared with rough Bergomi and
#   Black-Scholes by pricing barrier options on Monte Carlo paths)
# observed on jax 0.10.2 CPU: generate_market_paths splits `key` into key_vol and key_spot, draws the
#   volatility noise and the spot noise from those, and then draws the initial-variance indices with
#   randint from `key` itself, the parent it already split: with jax_debug_key_reuse on and a typed key,
#   the call raises KeyReuseError at that randint line ("Previously-consumed key passed to jit-compiled
#   function at index 0"). The paths'
#   initial variances are thus drawn from a key that is not independent of the noises that drive them.
# gap: other
# added: stand-ins for what the module imports from the project: GenerativeTrainer (only .market_paths
#   and .config are read), load_config (utils/config.py reads config/params.yaml: the pricing and
#   bergomi values used here) and the trained model's generate_variance_path (a small log-variance
#   Euler recursion instead of the neural SDE of engine/neural_sde.py); the __main__ block. The module
#   is otherwise as at that commit.
import jax
import jax.numpy as jnp
import numpy as np


# --- stand-ins for engine.generative_trainer.GenerativeTrainer and utils.config.load_config ---
def load_config():
    return {
        'pricing': {'spot': 100.0, 'risk_free_rate': 0.04, 'use_sofr': False},
        'bergomi': {'rho': -0.7},
    }


class GenerativeTrainer:
    def __init__(self, config, market_paths):
        self.config = config
        self.market_paths = market_paths


class _VarianceModel:
    """Stand-in for the trained neural SDE: log-variance Euler steps driven by the noise."""

    def generate_variance_path(self, init_var, brownian_increments, dt):
        def step(log_v, dw):
            log_v = log_v + 2.0 * (jnp.log(0.04) - log_v) * dt + 1.5 * dw
            return log_v, jnp.exp(log_v)

        _, path = jax.lax.scan(step, jnp.log(init_var), brownian_increments)
        return path
# --- end of stand-ins ---

# Global auto-incrementing seed for reproducibility across calls
_GLOBAL_SEED_COUNTER = 0


def _next_key(seed=None):
    """Return a fresh PRNG key.  If *seed* is None, auto-increment."""
    global _GLOBAL_SEED_COUNTER
    if seed is not None:
        return jax.random.PRNGKey(seed)
    _GLOBAL_SEED_COUNTER += 1
    return jax.random.PRNGKey(_GLOBAL_SEED_COUNTER)


class DeepPricingEngine:
    """
    Monte Carlo Pricing Engine.
    Compares: Neural SDE vs Rough Bergomi vs Black-Scholes.
    """
    def __init__(self, trainer: GenerativeTrainer, model):
        self.trainer = trainer
        self.model = model
        self.config = trainer.config
        self._pricing_cfg = load_config()['pricing']
        self._r = self._resolve_rate()

    def _resolve_rate(self) -> float:
        """Use real SOFR rate when available, fall back to config."""
        if self._pricing_cfg.get('use_sofr', True):
            try:
                from utils.sofr_loader import get_sofr
                sofr = get_sofr()
                if sofr.is_available:
                    return sofr.get_rate()
            except Exception:
                pass
        return self._pricing_cfg['risk_free_rate']

    def generate_market_paths(self, n_paths, s0=None, mu=None, rho=None, seed=None):
        """
        Generates Spot-Vol paths using the trained Neural SDE.
        Implements leverage effect (rho) between the generated vol and spot noise.

        Args:
            seed: PRNG seed.  If None, uses an auto-incrementing global seed
                  so that successive calls produce independent samples.
        """
        if s0 is None:
            s0 = self._pricing_cfg['spot']
        if mu is None:
            mu = self._r
        if rho is None:
            rho = load_config()['bergomi']['rho']
        key = _next_key(seed)
        key_vol, key_spot = jax.random.split(key)
        
        # 1. Generate Neural Volatility
        dt = self.config['T'] / self.config['n_steps']
        noise_vol = jax.random.normal(key_vol, (n_paths, self.config['n_steps'])) * jnp.sqrt(dt)
        
        # Sample initial variance from empirical distribution
        real_v0s = self.trainer.market_paths[:, 0]
        random_indices = jax.random.randint(key, (n_paths,), 0, len(real_v0s))  # expect: JIT502
        v0_samples = real_v0s[random_indices]
        
        var_paths = jax.vmap(self.model.generate_variance_path, in_axes=(0, 0, None))(
            v0_samples, noise_vol, dt
        )
        
        # 2. Generate Spot with Leverage
        z_spot_indep = jax.random.normal(key_spot, (n_paths, self.config['n_steps']))
        
        # Correlate spot noise with the volatility driver
        # noise_vol is already dW_vol = sqrt(dt)*Z, so spot_driver has correct scaling
        spot_driver = rho * noise_vol + jnp.sqrt(1 - rho**2) * z_spot_indep * jnp.sqrt(dt)
        
        # Use *previsible* variance V_{k-1} at each step to avoid
        # adaptedness bias (V_k depends on same noise as spot driver).
        # Per-path v0 preserves the heterogeneity of initial conditions.
        v0_col = v0_samples.reshape(-1, 1)
        var_prev = jnp.concatenate([v0_col, var_paths[:, :-1]], axis=1)

        vol_paths = jnp.sqrt(var_prev)
        # spot_driver is already dW (scaled by sqrt(dt)), so no extra sqrt(dt) here
        log_ret = (mu - 0.5 * var_prev) * dt + vol_paths * spot_driver
        log_s = jnp.cumsum(log_ret, axis=1)
        s_paths = s0 * jnp.exp(log_s)
        
        s0_col = jnp.full((n_paths, 1), s0)
        return np.hstack([s0_col, s_paths]), np.array(var_paths)

    def generate_bs_paths(self, n_paths, s0, vol, mu=None, seed=None):
        """Generates standard Geometric Brownian Motion paths (Black-Scholes).

        Args:
            seed: PRNG seed.  If None, auto-increments for independent draws.
        """
        if mu is None:
            mu = self._r
        dt = self.config['T'] / self.config['n_steps']
        key = _next_key(seed)
        z = jax.random.normal(key, (n_paths, self.config['n_steps']))
        z = np.array(z)
        
        drift = (mu - 0.5 * vol**2) * dt
        diffusion = vol * np.sqrt(dt) * z
        
        log_ret = drift + diffusion
        log_s = np.cumsum(log_ret, axis=1)
        s_paths = s0 * np.exp(log_s)
        
        s0_col = np.full((n_paths, 1), s0)
        return np.hstack([s0_col, s_paths])

    def generate_bergomi_paths(self, bergomi_model, n_paths, s0=None):
        """Wrapper to extract numpy arrays from JAX-based Bergomi model."""
        if s0 is None:
            s0 = self._pricing_cfg['spot']
        st, vt = bergomi_model.simulate_spot_vol_paths(n_paths, s0=s0)
        return np.array(st), np.array(vt)

    def price_down_and_out_call(self, s_paths, strike, barrier, r=None, T=None):
        """
        Prices a Barrier Option (Down-and-Out Call).
        Payoff = max(S_T - K, 0) if min(S_t) > Barrier, else 0.
        Sensitive to 'Fat Tails' (Crash Risk).
        
        Args:
            T: Maturity. If None, uses the model's horizon for consistency.
        """
        if r is None:
            r = self._r
        if T is None:
            T = self.config['T']  # Use consistent horizon
        min_s = np.min(s_paths, axis=1)
        alive = (min_s > barrier).astype(float)
        
        s_T = s_paths[:, -1]
        payoff = np.maximum(s_T - strike, 0)
        
        # Discounted expected payoff
        return np.mean(payoff * alive) * np.exp(-r * T)


if __name__ == "__main__":
    import traceback

    config = {'T': 0.25, 'n_steps': 20}
    market_paths = 0.04 * jnp.exp(0.3 * jax.random.normal(jax.random.PRNGKey(5), (50, config['n_steps'])))
    engine = DeepPricingEngine(GenerativeTrainer(config, market_paths), _VarianceModel())

    s_paths, var_paths = engine.generate_market_paths(200, seed=3)
    assert s_paths.shape == (200, config['n_steps'] + 1) and var_paths.shape == (200, config['n_steps'])
    price = engine.price_down_and_out_call(s_paths, strike=100.0, barrier=85.0)
    assert np.isfinite(price)

    # observed: line 108 with jax_debug_key_reuse and typed keys (PRNGKey -> jax.random.key, as the
    #   corpus's key-reuse check does), generate_market_paths raises KeyReuseError at the randint draw:
    #   `key` was already consumed by jax.random.split(key) two statements earlier
    _PRNGKey = jax.random.PRNGKey
    jax.random.PRNGKey = jax.random.key
    try:
        with jax.debug_key_reuse(True):
            engine.generate_market_paths(200, seed=3)
    except Exception as err:
        assert type(err).__name__ == "KeyReuseError", err
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 108, frames[-1]
    else:
        raise AssertionError("no KeyReuseError")
    finally:
        jax.random.PRNGKey = _PRNGKey
