# source: https://github.com/patrick-kidger/optimistix/issues/81 (the reporter's snippet: the
#   root-finding example with the solver swapped for LevenbergMarquardt)
# observed on jax 0.10.2 CPU (optimistix 0.1.0, equinox 0.13.8, lineax 0.1.1): runs clean.
#   The reporter saw "FutureWarning: unhashable type: DynamicJaxprTracer. Attempting to
#   hash a tracer will lead to an error in a future JAX release" from inside the library
#   (JAX 0.4.31); the user code hashes nothing. Now the solve neither warns nor raises, also
#   when called again inside eqx.filter_jit, and the residual at the solution is ~0. Added:
#   the __main__ block (warnings turned into errors, the jitted call, the residual check).
# gap: exemption-vs-JAX
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


if __name__ == "__main__":
    import warnings

    import equinox as eqx

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)

        solver = optx.LevenbergMarquardt(rtol=1e-8, atol=1e-8)
        y0 = (jnp.array(0.0), jnp.zeros((2, 2)))
        sol = optx.root_find(fn, solver, y0)

        @eqx.filter_jit
        def solve(y0):
            return optx.root_find(fn, solver, y0).value

        value = solve(y0)

    c, d = fn(sol.value, None)
    assert jnp.abs(c) < 1e-6 and jnp.max(jnp.abs(d)) < 1e-6, (c, d)
    assert jnp.allclose(value[0], sol.value[0])
