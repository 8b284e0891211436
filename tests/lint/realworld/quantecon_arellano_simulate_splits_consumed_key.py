# source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/arellano.md
#   (QuantEcon's "Default Risk and Income Fluctuations" lecture: value function iteration
#   for Arellano's sovereign-default model with jitted Bellman operators whose `sizes`
#   tuple is static, then a Python simulation loop that draws re-entry to the markets)
# observed on jax 0.10.2 CPU: in simulate, each default period draws
#   jax.random.uniform(key) and then makes the next key with jax.random.split(key) from
#   the key that draw consumed ("# Update the random key"); with JAX's key-reuse checker
#   on (jax.debug_key_reuse) the simulation raises KeyReuseError at that split. The
#   jitted solver itself runs (static sizes tuple, traced params and arrays). Stand-ins
#   (quantecon is not installed): qe.markov.tauchen as quantecon defines it (n_std=3) and
#   qe.MarkovChain(...).simulate_indices drawn with a seeded NumPy generator. Left out:
#   the plots, `!pip`/`!nvidia-smi` and the qe.Timer blocks (their solve calls kept
#   once). The economy is built with B_size=251 -> 41 and y_size=51 -> 11 to fit the
#   verifier. Added: the __main__ block.
# gap: other
from types import SimpleNamespace

import numpy as np
from scipy.stats import norm

import jax
import jax.numpy as jnp
from typing import NamedTuple


def _tauchen(n, rho, sigma, mu=0.0, n_std=3):
    # stand-in for quantecon.markov.tauchen
    a_bar = n_std * np.sqrt(sigma ** 2 / (1 - rho ** 2))
    y = np.linspace(-a_bar, a_bar, n)
    d = y[1] - y[0]
    P = np.empty((n, n))
    for i in range(n):
        P[i, 0] = norm.cdf((y[0] - rho * y[i] + d / 2) / sigma)
        P[i, n - 1] = 1 - norm.cdf((y[n - 1] - rho * y[i] - d / 2) / sigma)
        for j in range(1, n - 1):
            z = y[j] - rho * y[i]
            P[i, j] = norm.cdf((z + d / 2) / sigma) - norm.cdf((z - d / 2) / sigma)
    return SimpleNamespace(state_values=y + mu / (1 - rho), P=P)


class _MarkovChain:
    # stand-in for quantecon.MarkovChain (simulate_indices only)
    def __init__(self, P, state_values):
        self.P = np.asarray(P)

    def simulate_indices(self, ts_length, init):
        rng = np.random.default_rng(1234)
        cdf = np.cumsum(self.P, axis=1)
        out = np.empty(ts_length, dtype=int)
        out[0] = init
        for t in range(1, ts_length):
            out[t] = min(np.searchsorted(cdf[out[t - 1]], rng.uniform()), len(cdf) - 1)
        return out


qe = SimpleNamespace(markov=SimpleNamespace(tauchen=_tauchen), MarkovChain=_MarkovChain)

jax.config.update("jax_enable_x64", True)

class ArellanoEconomy(NamedTuple):
    β: float            # Time discount parameter
    γ: float            # Utility parameter
    r: float            # Lending rate
    ρ: float            # Persistence in the income process
    η: float            # Standard deviation of the income process
    θ: float            # Prob of re-entering financial markets
    B_size: int         # Grid size for bonds
    y_size: int         # Grid size for income
    P: jnp.ndarray      # Markov matrix governing the income process
    B_grid: jnp.ndarray # Bond grid
    y_grid: jnp.ndarray # State values of the income process
    def_y: jnp.ndarray  # Default income process

def create_arellano(
    B_size=251,   # Grid size for bonds
    B_min=-0.45,  # Smallest B value
    B_max=0.45,   # Largest B value
    y_size=51,    # Grid size for income
    β=0.953,      # Time discount parameter
    γ=2.0,        # Utility parameter
    r=0.017,      # Lending rate
    ρ=0.945,      # Persistence in the income process
    η=0.025,      # Standard deviation of the income process
    θ=0.282,      # Prob of re-entering financial markets
    def_y_param=0.969,
):  # Parameter governing income in default
    # Set up grids
    B_grid = jnp.linspace(B_min, B_max, B_size)
    mc = qe.markov.tauchen(y_size, ρ, η)
    y_grid, P = jnp.exp(mc.state_values), mc.P

    # Put grids on the device
    P = jax.device_put(P)

    # Output received while in default, with same shape as y_grid
    def_y = jnp.minimum(def_y_param * jnp.mean(y_grid), y_grid)

    return ArellanoEconomy(
        β=β,
        γ=γ,
        r=r,
        ρ=ρ,
        η=η,
        θ=θ,
        B_size=B_size,
        y_size=y_size,
        P=P,
        B_grid=B_grid,
        y_grid=y_grid,
        def_y=def_y,
    )


@jax.jit
def u(c, γ):
    return c ** (1 - γ) / (1 - γ)


def compute_q(v_c, v_d, params, sizes, arrays):
    """
    Compute the bond price function q(B, y) at each (B, y) pair.  The first
    step is to calculate the default probabilities

        δ(B, y) := Σ_{y'} 1{v_c(B, y') < v_d(y')} P(y, y') dy'
    """

    # Unpack
    β, γ, r, ρ, η, θ = params
    B_size, y_size = sizes
    P, B_grid, y_grid, def_y = arrays

    # Set up arrays with indices [i_B, i_y, i_yp]
    v_d = jnp.reshape(v_d, (1, 1, y_size))
    v_c = jnp.reshape(v_c, (B_size, 1, y_size))
    P = jnp.reshape(P, (1, y_size, y_size))

    # Compute δ[i_B, i_y]
    default_states = v_c < v_d
    delta = jnp.sum(default_states * P, axis=(2,))

    q = (1 - delta) / (1 + r)
    return q


def T_d(v_c, v_d, params, sizes, arrays):
    """
    The RHS of the Bellman equation when income is at index y_idx and
    the country has chosen to default.  Returns an update of v_d.
    """
    # Unpack
    β, γ, r, ρ, η, θ = params
    B_size, y_size = sizes
    P, B_grid, y_grid, def_y = arrays

    B0_idx = jnp.searchsorted(B_grid, 1e-10)  # Index at which B is near zero

    current_utility = u(def_y, γ)
    v = jnp.maximum(v_c[B0_idx, :], v_d)
    w = θ * v + (1 - θ) * v_d
    A = jnp.reshape(w, (1, y_size))
    cont_value = jnp.sum(A * P, axis=(1,))

    return current_utility + β * cont_value


def bellman(v_c, v_d, q, params, sizes, arrays):
    """
    The RHS of the Bellman equation when the country is not in a
    defaulted state on their debt.  That is,

        bellman(B, y) =
            u(y - q(B', y) B' + B) + β Σ_{y'} v(B', y') P(y, y')

    If consumption is not positive then returns -np.inf
    """
    # Unpack
    β, γ, r, ρ, η, θ = params
    B_size, y_size = sizes
    P, B_grid, y_grid, def_y = arrays

    # Set up c[i_B, i_y, i_Bp]
    y_idx = jnp.reshape(jnp.arange(y_size), (1, y_size, 1))
    B_idx = jnp.reshape(jnp.arange(B_size), (B_size, 1, 1))
    Bp_idx = jnp.reshape(jnp.arange(B_size), (1, 1, B_size))
    c = y_grid[y_idx] - q[Bp_idx, y_idx] * B_grid[Bp_idx] + B_grid[B_idx]

    # Set up v[i_B, i_y, i_Bp, i_yp] and P[i_B, i_y, i_Bp, i_yp]
    v_d = jnp.reshape(v_d, (1, 1, 1, y_size))
    v_c = jnp.reshape(v_c, (1, 1, B_size, y_size))
    v = jnp.maximum(v_c, v_d)
    P = jnp.reshape(P, (1, y_size, 1, y_size))
    # Sum over i_yp
    continuation_value = jnp.sum(v * P, axis=(3,))

    # Return new_v_c[i_B, i_y, i_Bp]
    val = jnp.where(c > 0, u(c, γ) + β * continuation_value, -jnp.inf)
    return val

def T_c(v_c, v_d, q, params, sizes, arrays):
    vals = bellman(v_c, v_d, q, params, sizes, arrays)
    return jnp.max(vals, axis=2)

def get_greedy(v_c, v_d, q, params, sizes, arrays):
    vals = bellman(v_c, v_d, q, params, sizes, arrays)
    return jnp.argmax(vals, axis=2)

compute_q = jax.jit(compute_q, static_argnums=(3,))
T_d = jax.jit(T_d, static_argnums=(3,))
bellman = jax.jit(bellman, static_argnums=(4,))
T_c = jax.jit(T_c, static_argnums=(4,))
get_greedy = jax.jit(get_greedy, static_argnums=(4,))


def update_values_and_prices(v_c, v_d, params, sizes, arrays):

    q = compute_q(v_c, v_d, params, sizes, arrays)
    new_v_d = T_d(v_c, v_d, params, sizes, arrays)
    new_v_c = T_c(v_c, v_d, q, params, sizes, arrays)

    return new_v_c, new_v_d


def solve(model, tol=1e-8, max_iter=10_000):
    """
    Given an instance of `ArellanoEconomy`, this function computes the optimal
    policy and value functions.
    """
    # Unpack

    β, γ, r, ρ, η, θ, B_size, y_size, P, B_grid, y_grid, def_y = model

    params = β, γ, r, ρ, η, θ
    sizes = B_size, y_size
    arrays = P, B_grid, y_grid, def_y

    # Initial conditions for v_c and v_d
    v_c = jnp.zeros((B_size, y_size))
    v_d = jnp.zeros((y_size,))

    current_iter = 0
    error = tol + 1
    while (current_iter < max_iter) and (error > tol):
        if current_iter % 100 == 0:
            print(f"Entering iteration {current_iter} with error {error}.")
        new_v_c, new_v_d = update_values_and_prices(
            v_c, v_d, params, sizes, arrays
        )
        error = jnp.max(jnp.abs(new_v_c - v_c)) + jnp.max(
            jnp.abs(new_v_d - v_d)
        )
        v_c, v_d = new_v_c, new_v_d
        current_iter += 1

    print(f"Terminating at iteration {current_iter}.")

    q = compute_q(v_c, v_d, params, sizes, arrays)
    B_star = get_greedy(v_c, v_d, q, params, sizes, arrays)
    return v_c, v_d, q, B_star




def simulate(model, T, v_c, v_d, q, B_star, key):
    """
    Simulates the Arellano 2008 model of sovereign debt

    Here `model` is an instance of `ArellanoEconomy` and `T` is the length of
    the simulation.  Endogenous objects `v_c`, `v_d`, `q` and `B_star` are
    assumed to come from a solution to `model`.
    """
    # Unpack elements of the model
    B_size, y_size = model.B_size, model.y_size
    B_grid, y_grid, P = model.B_grid, model.y_grid, model.P

    B0_idx = jnp.searchsorted(B_grid, 1e-10)  # Index at which B is near zero

    # Set initial conditions
    y_idx = y_size // 2
    B_idx = B0_idx
    in_default = False

    # Create Markov chain and simulate income process
    mc = qe.MarkovChain(P, y_grid)
    y_sim_indices = mc.simulate_indices(T + 1, init=y_idx)

    y_sim, y_a_sim = [], []
    B_sim, q_sim, d_sim = [], [], []

    # Perform simulation
    t = 0
    while t < T:
        y_sim.append(y_grid[y_idx])
        B_sim.append(B_grid[B_idx])
        if v_c[B_idx, y_idx] < v_d[y_idx] or in_default:
            y_a_sim.append(model.def_y[y_idx])
            d_sim.append(1)
            Bp_idx = B0_idx
            # Re-enter financial markets next period with prob θ
            in_default = False if jax.random.uniform(key) < model.θ else True
            key, _ = jax.random.split(key)  # Update the random key  # expect: JIT502
        else:
            y_a_sim.append(y_sim[t])
            d_sim.append(0)
            Bp_idx = B_star[B_idx, y_idx]

        q_sim.append(q[Bp_idx, y_idx])
        # Update time and indices
        t += 1
        y_idx = y_sim_indices[t]
        B_idx = Bp_idx

    return (
        jnp.array(y_sim),
        jnp.array(y_a_sim),
        jnp.array(B_sim),
        jnp.array(q_sim),
        jnp.array(d_sim),
    )


ae = create_arellano(B_size=41, y_size=11)
v_c, v_d, q, B_star = solve(ae)

T = 250
key = jax.random.key(42)
y_sim, y_a_sim, B_sim, q_sim, d_sim = simulate(ae, T, v_c, v_d, q, B_star, key)


if __name__ == "__main__":
    import traceback
    import jax.errors

    assert int(d_sim.sum()) > 0  # the simulated economy defaults, so the re-entry draw runs
    # observed: line 300 splits the key that jax.random.uniform just consumed: with the
    #   key-reuse checker on, the same simulation raises KeyReuseError there
    line = None
    with jax.debug_key_reuse(True):
        try:
            simulate(ae, T, v_c, v_d, q, B_star, jax.random.key(42))
        except jax.errors.KeyReuseError as err:
            line = [fr.lineno for fr in traceback.extract_tb(err.__traceback__)
                    if fr.filename == __file__][-1]
    assert line == 300, line
    assert bool(jnp.all(jnp.isfinite(v_d)))
