# source: https://github.com/QuantEcon/lecture-python.myst/blob/b61b30e6c677ea7ad78140ac789e0e89ef80543f/lectures/mccall_model_with_sep_markov.md
#   (the Job Search III lecture before https://github.com/QuantEcon/lecture-python.myst/pull/687,
#   which removed `successive_approx` and jitted `vfi` with the model as an argument; the
#   lecture's code cells up to the sensitivity analysis, plots left out)
# observed on jax 0.10.2 CPU: `successive_approx` takes the operator as a static argument,
#   and `vfi` hands it a new `lambda v: T(v, model)` on every call: a new cache key that
#   equals no earlier one, so every vfi call traces and compiles successive_approx again
#   (11 compilations for the lecture's 11 solves; two calls of vfi with the same model
#   compile twice). Added: `tauchen`, the smallest stand-in for quantecon.markov.tauchen,
#   and the __main__ block, which counts the compilations.
# gap: per-call-recompile
import numpy as np
from scipy.stats import norm
import jax.numpy as jnp
import jax
from jax import jit, lax
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


@partial(jit, static_argnums=(0,))
def successive_approx(
        T,                         # Operator (callable) - marked as static
        x_0,                       # Initial condition
        tolerance: float = 1e-6,   # Error tolerance
        max_iter: int = 100_000,   # Max iteration bound
    ):
    """Computes the approximate fixed point of T via successive
    approximation using lax.while_loop."""
    
    def cond_fn(carry):
        x, error, k = carry
        return (error > tolerance) & (k <= max_iter)
    
    def body_fn(carry):
        x, error, k = carry
        x_new = T(x)
        error = jnp.max(jnp.abs(x_new - x))
        return (x_new, error, k + 1)
    
    initial_carry = (x_0, tolerance + 1, 1)
    x_final, _, _ = lax.while_loop(cond_fn, body_fn, initial_carry)
    
    return x_final


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


@jit
def T(v: jnp.ndarray, model: Model) -> jnp.ndarray:
    """The Bellman operator for the value of being unemployed."""
    n, w_vals, P, P_cumsum, β, c, α = model
    d = 1 / (1 - β * (1 - α))
    accept = d * (w_vals + α * β * P @ v)
    reject = c + β * P @ v
    return jnp.maximum(accept, reject)


@jit
def get_greedy(v: jnp.ndarray, model: Model) -> jnp.ndarray:
    """Get a v-greedy policy."""
    n, w_vals, P, P_cumsum, β, c, α = model
    d = 1 / (1 - β * (1 - α))
    accept = d * (w_vals + α * β * P @ v)
    reject = c + β * P @ v
    σ = accept >= reject
    return σ


def vfi(model: Model):
    """Solve by VFI."""
    v_init = jnp.zeros(model.w_vals.shape)
    v_star = successive_approx(lambda v: T(v, model), v_init)  # expect: JIT301
    σ_star = get_greedy(v_star, model)
    return v_star, σ_star


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

    # Find all wage indices where policy indicates acceptance
    accept_indices = jnp.where(σ == 1)[0]

    if len(accept_indices) == 0:
        return jnp.inf  # Agent never accepts any wage

    # Return the lowest wage that is accepted
    return w_vals[accept_indices[0]]


model = create_js_with_sep_model()
n, w_vals, P, P_cumsum, β, c, α = model
v_star, σ_star = vfi(model)

d = 1 / (1 - β * (1 - α))
accept = d * (w_vals + α * β * P @ v_star)
h_star = c + β * P @ v_star
w_star = get_reservation_wage(σ_star, model)

α_vals: jnp.ndarray = jnp.linspace(0.0, 1.0, 10)

w_star_vec = jnp.empty_like(α_vals)
for (i_α, α) in enumerate(α_vals):
    model = create_js_with_sep_model(α=α)
    v_star, σ_star = vfi(model)
    w_star = get_reservation_wage(σ_star, model)
    w_star_vec = w_star_vec.at[i_α].set(w_star)


if __name__ == "__main__":
    # observed: line 113 passes a new lambda as the static operator on every call of
    # vfi, so successive_approx is traced and compiled once per call, 11 times for the
    # lecture's solves above, and again for a repeated solve of the same model
    assert successive_approx._cache_size() == 11, successive_approx._cache_size()
    model = create_js_with_sep_model()
    v1, _ = vfi(model)
    v2, _ = vfi(model)
    assert successive_approx._cache_size() == 13, successive_approx._cache_size()
    assert jnp.allclose(v1, v2)
    assert bool(jnp.all(jnp.isfinite(w_star_vec)))
