# source: https://github.com/patrick-kidger/optimistix/issues/204
# observed on jax 0.10.2 CPU with optimistix: the reporter's working version runs clean:
#   optx.root_find traces fn (which reads the module-level x, never rebound, and builds its
#   residual with out-of-place .at[].set updates) and Newton converges to y = [1, 1]. The
#   thread's second version (r[-1] without y[0]) fails only because the Jacobian at y0 is
#   singular, a numerical matter, and is left out. Added: the __main__ block that checks the
#   solution.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import optimistix as optx


# Often import when doing scientific work
jax.config.update("jax_enable_x64", True)

x = jnp.array([1., 2.])

def fn(y, obj):
    r = jnp.zeros_like(y)
    r = r.at[0].set((y[0] - x[0])**2)
    r = r.at[-1].set((y[-1]+y[0] - x[-1])**2)

    return r

solver = optx.Newton(rtol=1e-8, atol=1e-8)
y0 = jnp.array([2.0, 2.0])
sol = optx.root_find(fn, solver, y0)


if __name__ == "__main__":
    assert sol.result == optx.RESULTS.successful
    assert jnp.allclose(sol.value, jnp.array([1.0, 1.0]), atol=1e-3)
