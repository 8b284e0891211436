# source: https://github.com/rasmushaa/black_scholes_app/blob/f3d3030b265d80643e43d58a51a10f467ea37126/fmath/pricing.py (called from https://github.com/rasmushaa/black_scholes_app/blob/f3d3030b265d80643e43d58a51a10f467ea37126/main.py on every press of the Streamlit "Run" button)
# observed on jax 0.10.2 CPU: runs; every function builds PRNGKey(1) itself, so each Run press redraws the same paths and the "model" distribution and the MC option price reuse the very same normals
# gap: cross-module
# observed: line 16 mc_stock_price called twice (two Run presses) returns identical paths
# observed: line 23 model_stock_price's normals equal those of mc_call_option_price (both PRNGKey(1)), and a second call repeats them
# observed: line 30 mc_call_option_price called twice returns the identical price and distribution; its draws equal model_stock_price's
# (the functions are copied unchanged; added: the __main__ block, which stands in for main.py pressing Run twice with small sizes)
import jax.numpy as jnp
import jax.random as jrandom
import jax.scipy as jscipy

def mc_stock_price(S0:float, T:float, r:float, sigma:float, samples=1000):
    n = 255*T # assuming trading days in a year
    dt = T/n
    S = jnp.ones([n, samples])*S0
    random_step = jrandom.normal(jrandom.PRNGKey(1), shape=[n-1, samples])  # expect: JIT502
    for i in range(1, n):
        S = S.at[i, :].set(S[i-1, :] * (1 + r*dt + sigma*jnp.sqrt(dt) * random_step[i-1, :]))
    return S


def model_stock_price(S0:float, T:float, r:float, sigma:float, samples=1000):
    random_step  = jrandom.normal(jrandom.PRNGKey(1), shape=[samples, 1])  # expect: JIT502
    S = jnp.ones(samples)*S0
    S = S*jnp.exp(T*(r - 0.5*sigma**2) + sigma*jnp.sqrt(T)*random_step)
    return S


def mc_call_option_price(S0:float, E:float, T:float, r:float, sigma:float, samples=1000):
    random_step  = jrandom.normal(jrandom.PRNGKey(1), shape=[samples])  # expect: JIT502
    S = jnp.ones(samples)*S0
    E = jnp.ones(samples)*E
    S = S*jnp.exp(T*(r - 0.5*sigma**2) + sigma*jnp.sqrt(T)*random_step)
    # Option is excecuted only if it's positive
    option_price_dist = jnp.zeros([samples, 2])
    option_price_dist = option_price_dist.at[:, 0].set(S-E)
    option_price = jnp.max(option_price_dist, axis=1)
    # Discounted price
    option_price = jnp.exp(-r*T)*option_price
    option_price_dist = jnp.exp(-r*T)*option_price_dist
    # Mean of uniform probability distribution is the average
    mean = jnp.sum(option_price)/samples
    return mean, option_price_dist[:, 0]

def bs_call_option_price(S0:float, E:float, T:float, r:float, sigma:float, samples=1000):

    d1 = (jnp.log(S0/E) + (r + sigma**2/2)*T) / (sigma*jnp.sqrt(T))
    d2 = d1 - sigma*jnp.sqrt(T)
    price = S0*jscipy.stats.norm.cdf(d1, 0, 1) - E*jnp.exp(-r*T)*jscipy.stats.norm.cdf(d2, 0, 1) 

    return price


if __name__ == "__main__":
    S0, r, sigma, E, T, N = 100, 0.02, 0.2, 100, 1, 8

    # Two presses of "Run" in main.py.
    paths_1 = mc_stock_price(S0, T, r, sigma, N)
    paths_2 = mc_stock_price(S0, T, r, sigma, N)
    assert jnp.array_equal(paths_1, paths_2), "stock paths differ between runs"
    print("mc_stock_price: identical paths on every run")

    M = 4 * N
    model = model_stock_price(S0, T, r, sigma, M)[:, 0]
    mean_1, dist_1 = mc_call_option_price(S0, E, T, r, sigma, samples=M)
    mean_2, dist_2 = mc_call_option_price(S0, E, T, r, sigma, samples=M)
    assert jnp.array_equal(dist_1, dist_2) and mean_1 == mean_2, "option price differs between runs"
    S_call = dist_1 * jnp.exp(r * T) + E
    assert jnp.allclose(S_call, model, rtol=1e-5), "model and MC option draws differ"
    assert jnp.array_equal(model, model_stock_price(S0, T, r, sigma, M)[:, 0])
    print("model_stock_price and mc_call_option_price use the same normals, on every run")
