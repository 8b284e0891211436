# source: https://github.com/patrick-kidger/diffrax/blob/5ea5fcb05058bd22548300a10ea5ef5ce7fb75bb/docs/examples/hessian.ipynb
# observed on jax 0.10.2 CPU (diffrax 0.7.2): runs clean; `jax.jit(jax.hessian(run))` traces
#   the Lotka-Volterra solve once (the times, step size and `args` are Python constants inside
#   the function) and a second call with new initial values hits the cache. Added: the
#   __main__ block that calls the jitted Hessian twice and checks its cache holds one entry.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from diffrax import diffeqsolve, ODETerm, Tsit5


def vector_field(t, y, args):
    prey, predator = y
    α, β, γ, δ = args
    d_prey = α * prey - β * prey * predator
    d_predator = -γ * predator + δ * prey * predator
    d_y = d_prey, d_predator
    return d_y


@jax.jit
@jax.hessian
def run(y0):
    term = ODETerm(vector_field)
    solver = Tsit5(scan_kind="bounded")
    t0 = 0
    t1 = 140
    dt0 = 0.1
    args = (0.1, 0.02, 0.4, 0.02)
    sol = diffeqsolve(term, solver, t0, t1, dt0, y0, args=args)
    ((prey,), _) = sol.ys
    return prey


if __name__ == "__main__":
    y0 = (jnp.array(10.0), jnp.array(10.0))
    h1 = run(y0)
    h2 = run((jnp.array(9.0), jnp.array(11.0)))
    assert jnp.shape(h1[0][0]) == ()
    assert all(bool(jnp.isfinite(v)) for v in jax.tree_util.tree_leaves(h2))
    assert run._cache_size() == 1
