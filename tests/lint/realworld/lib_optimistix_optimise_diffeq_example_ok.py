# source: https://github.com/patrick-kidger/optimistix/blob/v0.1.0/docs/examples/optimise_diffeq.ipynb
#   (the example's code cells, as published, without the last cell's plot and the
#   matplotlib import, which only that cell uses)
# observed on jax 0.10.2 CPU (optimistix 0.1.0, diffrax 0.7.2, equinox 0.13.8): runs clean
#   and recovers the parameters [0.1, 0.02, 0.4, 0.02] (verbose=True prints each
#   Levenberg--Marquardt step from inside the compiled solve). `get_data` builds its
#   filter_jit(filter_vmap(solve)) once; `solve` reads t0 and t1 from the SaveAt's traced
#   `ts` array, which diffeqsolve accepts as traced times, and unpacks the traced
#   parameter vector into four scalars. Added: the __main__ block.
# gap: exemption-vs-JAX
import diffrax as dfx  # https://github.com/patrick-kidger/diffrax
import equinox as eqx  # https://github.com/patrick-kidger/equinox
import jax.numpy as jnp
import optimistix as optx
from jaxtyping import Array, Float  # https://github.com/google/jaxtyping

def vector_field(
    t, y: Float[Array, "2"], parameters: Float[Array, "4"]
) -> Float[Array, "2"]:
    prey, predator = y
    α, β, γ, δ = parameters
    d_prey = α * prey - β * prey * predator
    d_predator = -γ * predator + δ * prey * predator
    d_y = jnp.stack([d_prey, d_predator])
    return d_y


def solve(
    parameters: Float[Array, "4"], y0: Float[Array, "2"], saveat: dfx.SaveAt
) -> Float[Array, "ts"]:
    """Solve a single ODE."""
    term = dfx.ODETerm(vector_field)
    solver = dfx.Tsit5()
    t0 = saveat.subs.ts[0]
    t1 = saveat.subs.ts[-1]
    dt0 = 0.1
    sol = dfx.diffeqsolve(
        term,
        solver,
        t0,
        t1,
        dt0,
        y0,
        args=parameters,
        saveat=saveat,
        # support forward-mode autodiff, which is used by Levenberg--Marquardt
        adjoint=dfx.DirectAdjoint(),
    )
    return sol.ys

def get_data() -> tuple[Float[Array, "3 2"], Float[Array, "3 50"]]:
    """Simulate some training data."""
    # We consider three possible initial conditions.
    y0_a = jnp.array([9.0, 9.0])
    y0_b = jnp.array([10.0, 10.0])
    y0_c = jnp.array([11.0, 11.0])
    y0s = jnp.stack([y0_a, y0_b, y0_c])
    true_parameters = jnp.array([0.1, 0.02, 0.4, 0.02])
    saveat = dfx.SaveAt(ts=jnp.linspace(0, 30, 20))
    batch_solve = eqx.filter_jit(eqx.filter_vmap(solve, in_axes=(None, 0, None)))
    values = batch_solve(true_parameters, y0s, saveat)
    return y0s, values

def residuals(parameters, y0s__values):
    y0s, values = y0s__values
    saveat = dfx.SaveAt(ts=jnp.linspace(0, 30, 20))
    batch_solve = eqx.filter_vmap(solve, in_axes=(None, 0, None))
    pred_values = batch_solve(parameters, y0s, saveat)
    return values - pred_values


(y0s, values) = get_data()
solver = optx.LevenbergMarquardt(rtol=1e-8, atol=1e-8, verbose=True)

init_parameters = jnp.zeros(4)
sol = optx.least_squares(residuals, solver, init_parameters, args=(y0s, values))

optx.max_norm(residuals(sol.value, (y0s, values)))


if __name__ == "__main__":
    assert jnp.allclose(sol.value, jnp.array([0.1, 0.02, 0.4, 0.02]), atol=1e-4), sol.value
    assert optx.max_norm(residuals(sol.value, (y0s, values))) < 1e-3
