# source: https://github.com/Kamin-At/FIN553_Machine_Learning_in_finance/blob/d4f459fa151f0be47d8936748ae2bd2c98ff6239/Least_Squares_Monte_Carlo_option_pricing/553_Project_2_LSMC_with_JAX.ipynb
#   (the same homework's Parts 2 and 3: the path simulator rewritten with one split key
#   and lax.scan, and a jitted Longstaff-Schwartz American put pricer with a Chebyshev
#   basis built by scan and a backward scan over exercise dates)
# observed on jax 0.10.2 CPU: runs clean; jit(compute_price)() returns about 4.47, as in
#   the notebook's output (4.465737). The Part 3 cell rebinds σ, r and m after simulate is
#   defined; simulate makes its jitted step afresh on each call, so called after that cell
#   it reads the current values and returns (m, 20000) = (50, 20000) paths. Added:
#   the imports of the notebook's first cell and the __main__ block with the notebook's
#   calls (the %%time magics are dropped; n is lowered from 100000 to 20000 paths for CPU
#   time).
# gap: exemption-vs-JAX
import jax.numpy as jnp
import jax
from jax import lax

# Data
σ = 0.04
r = 0.01
K = 35

# Design choice
dt = 0.01
m = 100
def simulate():
  key = jax.random.PRNGKey(seed = 0)
  key, subkey = jax.random.split(key)
  @jax.jit
  def step(S, dZ):
    dS = r * S  * dt + σ  * S  * dZ
    S = S + dS
    return S, S

  S0 = jnp.ones(20000)
  S = S0
  RD_normal = jax.random.normal(key=subkey, shape=(m, S.shape[0])) * jnp.sqrt(dt)
  S_list = []
  result_init = jnp.zeros(S.shape)

  _, result = jax.lax.scan(step, S, RD_normal)
  return result


Spot = 36   # stock price
σ = 0.2     # stock volatility
K = 40      # strike price
r = 0.06    # risk free rate
n = 20000   # Number of simualted paths
m = 50      # number of exercise dates
T = 1       # maturity
order = 12   # Polynmial order
Δt = T / m  # interval between two exercise dates


# Construct polynomial features of order up to k using the
# recursive formulation

def chebyshev_basis(x, k):
    B_init = jnp.ones(len(x)), x
    def B(carry, _):
      b1, b2 = carry
      bn = 2 * x * b2 - b1
      return (b2, bn), bn
    # print("B_init", B_init)
    carry, computed_B = jax.lax.scan(B, B_init, xs=None, length = k-2)
    computed_B = jnp.insert(computed_B, 0, values=x, axis=0)
    computed_B = jnp.insert(computed_B, 0, values=jnp.ones(len(x)), axis=0)
    return computed_B.T

# scales x to be in the interval(-1, 1)
def scale(x):
    xmin = x.min()
    xmax = x.max()
    a = 2 / (xmax - xmin)
    b = 1 - a * xmax
    return a * x + b


# simulates one step of the stock price evolution
def step(S, dZ):
  dS = r * S  * Δt + σ  * S  * dZ
  S = S + dS
  return S, S


def payoff_put(S):
    return jnp.maximum(K - S, 0.)


# LSMC algorithm
@jax.jit
def compute_price():
    key = jax.random.PRNGKey(seed = 1)
    key, subkey = jax.random.split(key)

    S0 = jnp.ones(n) * Spot
    S = S0
    RD_normal = jax.random.normal(key=subkey, shape=(m, S.shape[0])) * jnp.sqrt(Δt)
    S_list = []
    result_init = jnp.zeros(S.shape)

    _, S = jax.lax.scan(step, S, RD_normal)

    discount = jnp.exp(-r * Δt)
    # Very last date
    value_if_exercise = payoff_put(S[-1])
    discounted_future_cashflows = value_if_exercise * discount
    def iteration_replacement(Y, S):
      X = chebyshev_basis(scale(S), order)
      Θ = jnp.linalg.solve(X.T @ X, X.T @ Y)
      value_if_wait = X @ Θ
      value_if_exercise = payoff_put(S)
      exercise = value_if_exercise >= value_if_wait
      new_Y = discount * jnp.where(
            exercise,
            value_if_exercise,
            Y)
      return new_Y, new_Y
    Y = discounted_future_cashflows
    discounted_future_cashflows, _ = jax.lax.scan(iteration_replacement, Y, S[:-1], reverse=True)

    return discounted_future_cashflows.mean()


if __name__ == "__main__":
    simulated_paths = simulate()
    assert simulated_paths.shape == (m, 20000)
    price = compute_price()
    print(price)
    assert 4.0 < float(price) < 5.0
