# source: https://github.com/QuantEcon/lecture-jax/blob/2d33ed299887dfdb230a5dc44e0e327a32ddac5c/lectures/lucas_model.md
#   (QuantEcon's "Asset Pricing: The Lucas Asset Pricing Model" JAX lecture, the "JAX code"
#   section and the solution of exercise 1)
# observed on jax 0.10.2 CPU: successive_approx_jax is jitted with the operator T static,
#   and solve_model hands it `_T`, a lambda it makes anew on every call: a static argument
#   that equals no earlier one, so every solve_model call traces and compiles the
#   while_loop again. The lecture's "Now time execution without compile time" cell, the
#   second solve_model call with the same params and arrays, compiles successive_approx_jax
#   once more (the timing it reports includes a compilation), and the exercise compiles it
#   for each β. The jitted T (params and arrays as traced tuples) and the vmapped jitted
#   compute_expectation run correctly.
# gap: per-call-recompile
# added: the imports of the JAX cells (the Numba version, quantecon's Timer and the plots
#   are left out), and the __main__ block, which counts the compilations.
import jax.numpy as jnp
import jax


def create_lucas_tree_model(
    γ=2,     # CRRA utility parameter
    β=0.95,  # Discount factor
    α=0.90,  # Correlation coefficient
    σ=0.1,   # Volatility coefficient
    grid_size=500,
    draw_size=1_000,
    seed=11,
):
    # Set the grid interval to contain most of the mass of the
    # stationary distribution of the consumption endowment
    ssd = σ / jnp.sqrt(1 - α**2)
    grid_min, grid_max = jnp.exp(-4 * ssd), jnp.exp(4 * ssd)
    grid = jnp.linspace(grid_min, grid_max, grid_size)

    # Set up distribution for shocks
    key = jax.random.key(seed)
    draws = jax.random.lognormal(key, σ, shape=(draw_size,))
    grid_reshaped = grid.reshape((grid_size, 1))
    draws_reshaped = draws.reshape((-1, draw_size))
    h = β * jnp.mean((grid_reshaped**α * draws_reshaped) ** (1 - γ), axis=1)
    params = γ, β, α, σ
    arrays = grid, draws, h
    return params, arrays


@jax.jit
def compute_expectation(y, α, draws, grid, f):
    return jnp.mean(jnp.interp(y**α * draws, grid, f))


# Vectorize over y
compute_expectation = jax.vmap(
    compute_expectation, in_axes=(0, None, None, None, None)
)


@jax.jit
def T(params, arrays, f):
    """
    The Lucas operator
    """
    grid, draws, h = arrays
    γ, β, α, σ = params
    mci = compute_expectation(grid, α, draws, grid, f)
    return h + β * mci


def successive_approx_jax(
    T,         # Operator (callable)
    x_0,       # Initial condition
    tol=1e-6,  # Error tolerance
    max_iter=10_000,
):  # Max iteration bound
    def body_fun(k_x_err):
        k, x, error = k_x_err
        x_new = T(x)
        error = jnp.max(jnp.abs(x_new - x))
        return k + 1, x_new, error

    def cond_fun(k_x_err):
        k, x, error = k_x_err
        return jnp.logical_and(error > tol, k < max_iter)

    k, x, error = jax.lax.while_loop(cond_fun, body_fun, (1, x_0, tol + 1))
    return x


successive_approx_jax = jax.jit(successive_approx_jax, static_argnums=(0,))


def solve_model(params, arrays, tol=1e-6, max_iter=500):
    """
    Compute the equilibrium price function.
    """
    # Simplify notation
    grid, draws, h = arrays
    γ, β, α, σ = params
    _T = lambda f: T(params, arrays, f)
    f = jnp.ones_like(grid)  # Initial guess of f
    f = successive_approx_jax(_T, f, tol=tol, max_iter=max_iter)  # expect: JIT301
    price = f * grid**γ  # Back out price vector
    return price


params, arrays = create_lucas_tree_model()
grid, draws, h = arrays
γ, β, α, σ = params

# Solve once to compile
price_vals = solve_model(params, arrays).block_until_ready()


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    # observed: line 99 gives successive_approx_jax a new lambda on every call: the timed
    #   second call with the same model compiles again, and so does each β of the exercise
    again = solve_model(params, arrays).block_until_ready()
    assert len(compiles) >= 1
    assert jnp.allclose(again, price_vals)
    compiles.clear()
    for β in (0.95, 0.98):
        params_β, arrays_β = create_lucas_tree_model(β=β)
        price_β = solve_model(params_β, arrays_β)
    assert len(compiles) >= 2
    assert bool(jnp.all(jnp.diff(price_vals) > 0))
