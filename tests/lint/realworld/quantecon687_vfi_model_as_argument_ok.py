# source: https://github.com/QuantEcon/lecture-python.myst/pull/687 (the Job Search III
#   lecture as the pull request left it, lectures/mccall_model_with_sep_markov.md at
#   0d564d4b16f61d94066ca31e6fe4d0a6ef0bd114: `successive_approx` removed, `vfi` jitted with
#   the model as an argument and its loop in lax.while_loop, `get_reservation_wage` jitted
#   with jnp.argmax and a three-argument jnp.where; the code cells up to the sensitivity
#   analysis, plots left out)
# observed on jax 0.10.2 CPU: runs clean. vfi takes the model as a traced pytree, so the
#   solves of the sensitivity loop reuse its compilations (two: the default model's
#   Python-float α and the loop's array α); `tolerance` and `max_iter` stay Python
#   defaults the while_loop closures read; get_reservation_wage has no data-dependent
#   shape. Added: `tauchen`, the smallest stand-in for quantecon.markov.tauchen, and the
#   __main__ block, which checks the compilation count and the results.
# gap: per-call-recompile
import numpy as np
from scipy.stats import norm
import jax.numpy as jnp
import jax
from jax import lax
from typing import NamedTuple
from functools import partial


def tauchen(n, rho, sigma, mu=0.0, n_std=3):
    # stand-in for quantecon.markov.tauchen: an object with .state_values and .P
    std_y = np.sqrt(sigma**2 / (1 - rho**2))
    x = np.linspace(-n_std * std_y, n_std * std_y, n)
    step = x[1] - x[0]
    P = np.empty((n, n))
    for i in range(n):
        z = x - rho * x[i]
        P[i] = norm.cdf((z + step / 2) / sigma) - norm.cdf((z - step / 2) / sigma)
        P[i, 0] = norm.cdf((x[0] - rho * x[i] + step / 2) / sigma)
        P[i, -1] = 1 - norm.cdf((x[-1] - rho * x[i] - step / 2) / sigma)
    return NamedTuple("MarkovChain", [("P", np.ndarray), ("state_values", np.ndarray)])(P, x)


class Model(NamedTuple):
    n: int
    w_vals: jnp.ndarray
    P: jnp.ndarray
    P_cumsum: jnp.ndarray  # Cumulative sum of P for efficient sampling
    β: float
    c: float
    α: float


def create_js_with_sep_model(
        n: int = 200,          # wage grid size
        ρ: float = 0.9,        # wage persistence
        ν: float = 0.2,        # wage volatility
        β: float = 0.96,       # discount factor
        α: float = 0.05,       # separation rate
        c: float = 1.0         # unemployment compensation
    ) -> Model:
    """
    Creates an instance of the job search model with separation.

    """
    mc = tauchen(n, ρ, ν)
    w_vals, P = jnp.exp(jnp.array(mc.state_values)), jnp.array(mc.P)
    P_cumsum = jnp.cumsum(P, axis=1)
    return Model(n, w_vals, P, P_cumsum, β, c, α)


def T(v: jnp.ndarray, model: Model) -> jnp.ndarray:
    """The Bellman operator for the value of being unemployed."""
    n, w_vals, P, P_cumsum, β, c, α = model
    d = 1 / (1 - β * (1 - α))
    accept = d * (w_vals + α * β * P @ v)
    reject = c + β * P @ v
    return jnp.maximum(accept, reject)


def get_greedy(v: jnp.ndarray, model: Model) -> jnp.ndarray:
    """Get a v-greedy policy."""
    n, w_vals, P, P_cumsum, β, c, α = model
    d = 1 / (1 - β * (1 - α))
    accept = d * (w_vals + α * β * P @ v)
    reject = c + β * P @ v
    σ = accept >= reject
    return σ


@jax.jit
def vfi(
        model: Model,
        tolerance: float = 1e-6,   # Error tolerance
        max_iter: int = 100_000,   # Max iteration bound
    ):

    v_init = jnp.zeros(model.w_vals.shape)
    
    def cond(loop_state):
        v, error, i = loop_state
        return (error > tolerance) & (i <= max_iter)
    
    def update(loop_state):
        v, error, i = loop_state
        v_new = T(v, model)
        error = jnp.max(jnp.abs(v_new - v))
        new_loop_state = v_new, error, i + 1
        return new_loop_state
    
    initial_state = (v_init, tolerance + 1, 1)
    final_loop_state = lax.while_loop(cond, update, initial_state)
    v_final, error, i = final_loop_state

    return v_final


@jax.jit
def get_reservation_wage(σ: jnp.ndarray, model: Model) -> float:
    """
    Calculate the reservation wage from a given policy.

    Parameters:
    - σ: Policy array where σ[i] = True means accept wage w_vals[i]
    - model: Model instance containing wage values

    Returns:
    - Reservation wage (lowest wage for which policy indicates acceptance)
    """
    n, w_vals, P, P_cumsum, β, c, α = model

    # Find the first index where policy indicates acceptance
    # σ is a boolean array, argmax returns the first True value
    first_accept_idx = jnp.argmax(σ)

    # If no acceptance (all False), return infinity
    # Otherwise return the wage at the first acceptance index
    return jnp.where(jnp.any(σ), w_vals[first_accept_idx], jnp.inf)


model = create_js_with_sep_model()
n, w_vals, P, P_cumsum, β, c, α = model
v_star = vfi(model)
σ_star = get_greedy(v_star, model)

d = 1 / (1 - β * (1 - α))
accept = d * (w_vals + α * β * P @ v_star)
h_star = c + β * P @ v_star
w_star = get_reservation_wage(σ_star, model)

α_vals: jnp.ndarray = jnp.linspace(0.0, 1.0, 10)

w_star_vec = jnp.empty_like(α_vals)
for (i_α, α) in enumerate(α_vals):
    model = create_js_with_sep_model(α=α)
    v_star = vfi(model)
    σ_star = get_greedy(v_star, model)
    w_star = get_reservation_wage(σ_star, model)
    w_star_vec = w_star_vec.at[i_α].set(w_star)


if __name__ == "__main__":
    assert vfi._cache_size() <= 2, vfi._cache_size()
    assert bool(jnp.all(jnp.isfinite(w_star_vec)))
    # the reservation wage is the lowest accepted wage
    σ = get_greedy(vfi(create_js_with_sep_model()), create_js_with_sep_model())
    idx = int(np.argmax(np.asarray(σ)))
    assert float(get_reservation_wage(σ, create_js_with_sep_model())) == float(
        create_js_with_sep_model().w_vals[idx])
