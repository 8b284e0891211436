# source: https://github.com/kbhaon/black_scholes_streamlit_app/blob/da278899ee97eb0bfe12cb4bc79944e5c62c5488/options%20pricer/pages/monte_carlo/gbm.py
# observed on jax 0.10.2 CPU: generate_paths_asia is jitted with every argument traced, so the path count and step count
#   reach random.normal's shape as tracers: the call raises TypeError (shapes must be concrete) at the random.normal line;
#   jnp.full((n_simulations, 1), S) a few lines on would fail the same way (a repeat hidden by the raise).
# (a personal Streamlit option-pricing app: Monte Carlo paths for an Asian option, jitted; option_price_*_asia still call
#   generate_paths_asia() without arguments, work in progress that is not a jit bug and is never reached here)
# gap: omnistaging
# added: the __main__ block, which calls generate_paths_asia with the module's key and the defaults of the app's
#   monte_carlo_page.py inputs (S=K=100, T=1, r=0.05, sigma=0.2, 1000 simulations, 1 step).
from jax import jit, random
import jax.numpy as jnp

key = random.PRNGKey(99)

@jit
def generate_paths_asia(key, n_simulations, n_steps, S, K, T, r, sigma):
    dt = T / n_steps
    Z = random.normal(key, (n_simulations, n_steps))  # expect: JIT404
    
    log_returns = (r - 0.5 * sigma**2) * dt + sigma *jnp.sqrt(dt) * Z
    cumulative_log_returns = jnp.cumsum(log_returns, axis=1)
    log_prices = jnp.log(S) + cumulative_log_returns
    
    S_Paths = jnp.exp(log_prices)
    S_column = jnp.full((n_simulations, 1), S)  # tolerate: JIT404
    S_Full = jnp.concatenate([S_column, S_Paths], axis=1)


    return S_Full

@jit
def option_price_put_asia(key, n_simulations, n_steps, S, K, T, r, sigma):

    S_Full = generate_paths_asia()
    
    avg_prices = jnp.mean(S_Full, axis=1)

    payoffs = jnp.maximum(K - avg_prices, 0)

    expected_payoffs = jnp.mean(payoffs)

    option_price_put = jnp.exp(-r * T) * expected_payoffs

    return option_price_put

@jit
def option_price_call_asia(key, n_simulations, n_steps, S, K, T, r, sigma):

    S_Full = generate_paths_asia()
    
    avg_prices = jnp.mean(S_Full, axis=1)

    payoffs = jnp.maximum(avg_prices - K, 0)

    expected_payoffs = jnp.mean(payoffs)

    option_price_call = jnp.exp(-r * T) * expected_payoffs


    return option_price_call

"""@jit
def option_price_call_asia():

    return


@jit
def geometric_brownian_motion_europe():
    return """


if __name__ == "__main__":
    S_Full = generate_paths_asia(key, 1000, 1, 100.0, 100.0, 1.0, 0.05, 0.2)
    print(S_Full.shape)
