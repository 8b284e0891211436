# source: https://github.com/patrick-kidger/optimistix/blob/v0.1.0/docs/examples/root_find.ipynb
# observed on jax 0.10.2 CPU (optimistix 0.1.0, equinox 0.13.8): runs clean. `fn` unpacks the
#   tuple `y` (a pytree, not an array) with `a, b = y` while optx.root_find traces it, and
#   the solution is a root. Left out: the notebook's last cell, whose function has no root
#   and raises the solver's runtime error on purpose. Added: the __main__ block, which
#   checks the residual and runs the same solve inside jax.jit with the initial value traced.
# gap: types
import jax
import jax.numpy as jnp
import optimistix as optx


# Often import when doing scientific work
jax.config.update("jax_enable_x64", True)


def fn(y, args):
    a, b = y
    c = jnp.tanh(jnp.sum(b)) - a
    d = a**2 - jnp.sinh(b + 1)
    return c, d


solver = optx.Newton(rtol=1e-8, atol=1e-8)
y0 = (jnp.array(0.0), jnp.zeros((2, 2)))
sol = optx.root_find(fn, solver, y0)


print(sol.value)


print(fn(sol.value, args=None))


if __name__ == "__main__":
    c, d = fn(sol.value, args=None)
    assert abs(c) < 1e-6 and jnp.abs(d).max() < 1e-6

    @jax.jit
    def solve(y0):
        return optx.root_find(fn, solver, y0).value

    a, b = solve((jnp.array(0.0), jnp.zeros((2, 2))))
    assert jnp.allclose(a, sol.value[0]) and jnp.allclose(b, sol.value[1])
