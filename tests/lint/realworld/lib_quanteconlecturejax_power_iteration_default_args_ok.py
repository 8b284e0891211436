# source: https://github.com/QuantEcon/lecture-jax/blob/0c77235a1cd5e2c4ebd7a7e93b48d79a7d587309/lectures/markov_asset.md
#   (the lecture's code cells at the commit "remove static arguments", made after the
#   discussion in https://github.com/QuantEcon/lecture-jax/issues/95: power_iteration_sr
#   is jitted with no static_argnums because the lecture only ever calls it with its
#   default num_iterations and seed; the plotting cell is left out)
# observed on jax 0.10.2 CPU: runs clean. jit traces only the arguments a call passes, so
#   `num_iterations` and `seed` stay the Python defaults 15 and 1234: `range(num_iterations)`
#   and `PRNGKey(seed)` see Python ints, and the γ loop reuses one compilation. The
#   NumPy loop version fills `np.empty` by item assignment. Added: `tauchen`, the smallest
#   stand-in for quantecon's `qe.tauchen` (state values and transition matrix of the AR(1)
#   discretisation), and the __main__ block, which runs the lecture's cells.
# gap: exemption-vs-JAX
import numpy as np
import jax
import jax.numpy as jnp
from collections import namedtuple
from scipy.stats import norm

jax.config.update("jax_enable_x64", True)


def tauchen(n, rho, sigma, mu=0.0, n_std=3):
    # stand-in for quantecon.tauchen: returns an object with .state_values and .P
    std_y = np.sqrt(sigma**2 / (1 - rho**2))
    x = np.linspace(-n_std * std_y, n_std * std_y, n)
    step = x[1] - x[0]
    P = np.empty((n, n))
    for i in range(n):
        z = x - rho * x[i]
        P[i] = norm.cdf((z + step / 2) / sigma) - norm.cdf((z - step / 2) / sigma)
        P[i, 0] = norm.cdf((x[0] - rho * x[i] + step / 2) / sigma)
        P[i, -1] = 1 - norm.cdf((x[-1] - rho * x[i] - step / 2) / sigma)
    return namedtuple("MarkovChain", ("P", "state_values"))(P, x + mu / (1 - rho))


class qe:
    tauchen = staticmethod(tauchen)


def power_iteration_sr(A, num_iterations=15, seed=1234):
    " Estimates the spectral radius of A via power iteration. "

    # Initialize
    key = jax.random.PRNGKey(seed)
    b_k = jax.random.normal(key, (A.shape[1],))
    sr = 0

    for _ in range(num_iterations):
        # calculate the matrix-by-vector product Ab
        b_k1 = jnp.dot(A, b_k)

        # calculate the norm
        b_k1_norm = jnp.linalg.norm(b_k1)

        # Record the current estimate of the spectral radius
        sr = jnp.sum(b_k1 * b_k)/jnp.sum(b_k * b_k)

        # re-normalize the vector and continue
        b_k = b_k1 / b_k1_norm

    return sr

power_iteration_sr = jax.jit(power_iteration_sr)


def test_stability(Q):
    """
    Assert that the spectral radius of matrix Q is < 1.
    """
    sr = power_iteration_sr(Q)
    assert sr < 1, f"Spectral radius condition failed with radius = {sr}"


Model = namedtuple('Model',
                   ('P', 'S', 'β', 'γ', 'μ_c', 'μ_d', 'σ_c', 'σ_d'))

def create_model(N=100,         # size of state space for Markov chain
                 ρ=0.9,         # persistence parameter for Markov chain
                 σ=0.01,        # persistence parameter for Markov chain
                 β=0.98,        # discount factor
                 γ=2.5,         # coefficient of risk aversion
                 μ_c=0.01,      # mean growth of consumtion
                 μ_d=0.01,      # mean growth of dividends
                 σ_c=0.02,      # consumption volatility
                 σ_d=0.04):     # dividend volatility
    # Create the state process
    mc = qe.tauchen(N, ρ, σ)
    S = mc.state_values
    P = mc.P
    # Shift arrays to the device
    S, P = map(jax.device_put, (S, P))
    # Return the namedtuple
    return Model(P=P, S=S, β=β, γ=γ, μ_c=μ_c, μ_d=μ_d, σ_c=σ_c, σ_d=σ_d)


def compute_K(model):
    # Setp up
    P, S, β, γ, μ_c, μ_d, σ_c, σ_d = model
    N = len(S)
    # Reshape and multiply pointwise using broadcasting
    x = jnp.reshape(S, (N, 1))
    a = μ_d - γ * μ_c
    e = jnp.exp(a + (1 - γ) * x + (σ_d**2 + γ**2 * σ_c**2) / 2)
    K = β * e * P
    return K


def compute_K_loop(model):
    # Setp up
    P, S, β, γ, μ_c, μ_d, σ_c, σ_d = model
    N = len(S)
    K = np.empty((N, N))
    a = μ_d - γ * μ_c
    for i, x in enumerate(S):
        for j, y in enumerate(S):
            e = jnp.exp(a + (1 - γ) * x + (σ_d**2 + γ**2 * σ_c**2) / 2)
            K[i, j] = β * e * P[i, j]
    return K


def price_dividend_ratio(model, test_stable=True):
    """
    Computes the price-dividend ratio of the asset.

    Parameters
    ----------
    model: an instance of Model
        contains primitives

    Returns
    -------
    v : array_like
        price-dividend ratio

    """
    K = compute_K(model)
    N = len(model.S)

    if test_stable:
        test_stability(K)

    # Compute v
    I = jnp.identity(N)
    ones_vec = np.ones(N)
    v = jnp.linalg.solve(I - K, K @ ones_vec)

    return v


if __name__ == "__main__":
    model = create_model(N=10)
    K1 = compute_K(model)
    K2 = compute_K_loop(model)
    assert jnp.allclose(K1, K2)

    model = create_model()
    S = model.S
    γs = jnp.linspace(2.0, 3.0, 5)
    vs = []
    for γ in γs:
        model = create_model(γ=γ)
        v = price_dividend_ratio(model)
        vs.append(v)
    assert all(bool(jnp.all(jnp.isfinite(v))) for v in vs)
    K = compute_K(create_model())
    sr = float(power_iteration_sr(K))
    assert 0 < sr < 1, sr
