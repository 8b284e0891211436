# source: https://github.com/patrick-kidger/optimistix/issues/155
# observed on jax 0.10.2 CPU with optimistix: the reporter's MWE runs clean (x64 left off,
#   as in the report): root_find traces fn, whose jnp.eye(y.shape[-1]) takes its size from
#   the static shape of the traced y, and Newton solves M @ y = 0 to y = 0. (With x64 on, the
#   report's dtype mismatch in the solver loop was fixed in optimistix#156.) Added: the
#   __main__ block that keeps and checks the solution.
# gap: omnistaging
import jax
import optimistix as optx

# uncomment to break:
# jax.config.update("jax_enable_x64", True)

def fn(y, args):
    M = jax.numpy.eye(y.shape[-1])
    return (M @ y).astype(jax.numpy.float32)

y0 = jax.numpy.ones(10, dtype=jax.numpy.float32)
solver = optx.Newton(rtol=1e-3, atol=1e-3)
optx.root_find(fn, solver, y0)


if __name__ == "__main__":
    sol = optx.root_find(fn, solver, y0)
    assert sol.result == optx.RESULTS.successful
    assert jax.numpy.allclose(sol.value, 0.0, atol=1e-3)
