# source: https://github.com/GJBoth/modax/blob/5c45111b142cb5dbf8dcb1fa2ce2b5fc749ff76e/notebooks/differentiable_fwd_solver/forward_solver.py
#   (fixed-point solvers for sparse Bayesian regression in a research repo; its notebook
#   "2.1 - jittable_explicit_method.ipynb" says "So it works without jit - with jit it
#   doesnt work (yet)" and shows ConcretizationTypeError when the explicit solver runs with
#   jit on; the notebooks call it inside `with jax.disable_jit():`)
# observed on jax 0.10.2 CPU: fwd_solver_jittable_diffable raises
#   TracerBoolConversionError at its Python `while cond_fun(carry)`, the norm test being a
#   tracer under the decorator's jit (jax.disable_jit inside a trace does not make it
#   concrete); fwd_solver_diffable (and fixed_point_solver_explicit, which calls it) raises
#   at `if iteration < max_iterations`, max_iterations being a traced argument, and with
#   max_iterations made static its hand-written while_loop raises at `while cond_fun(val)`
#   on break_fn's traced result; fwd_solver and fixed_point_solver_implicit, built on
#   lax.while_loop and lax.cond, run under jit and grad. The file is kept as committed.
#   Added: the __main__ block (the contraction z = 0.5 cos(z) + a, its break_fn, and calls
#   of each solver with the errors caught and their lines checked).
# gap: other
# %% Imports
import jax
from jax import jit, numpy as jnp, lax
from functools import partial


@partial(jit, static_argnums=(0, 2))
def fwd_solver_jittable_diffable(f, z_init, break_fn):
    def cond_fun(carry):
        z_prev, z, iteration = carry
        with jax.disable_jit():
            conv = jnp.linalg.norm(z_prev - z) > 1e-5
        return conv

    def body_fun(carry):
        _, z, iteration = carry
        return z, f(z), iteration + 1

    carry = (
        z_init,
        f(z_init),
        1,
    )

    while cond_fun(carry):  # expect: JIT102
        carry = body_fun(carry)
    _, z_star, metrics = carry
    return z_star, metrics


# Explicit method
@partial(jit, static_argnums=(0, 2))
def fwd_solver_diffable(f, z_init, break_fn, max_iterations):
    def while_loop(cond_fun, body_fun, init_val):
        val = init_val
        while cond_fun(val):  # expect: JIT102
            val = body_fun(val)
        return val

    def _cond_fun(carry):
        z_prev, z, iteration = carry
        if iteration < max_iterations:  # expect: JIT101
            return break_fn(z_prev, z)
        else:
            return False

    def body_fun(carry):
        _, z, iteration = carry
        return z, f(z), iteration + 1

    init_carry = (
        z_init,
        f(z_init),
        1,
    )
    _, z_star, metrics = while_loop(_cond_fun, body_fun, init_carry)
    return z_star, metrics


# Implicit methods
@partial(jit, static_argnums=(0, 2))
def fwd_solver(f, z_init, cond_fun, max_iter=300):
    def _cond_fun(carry):
        z_prev, z, iteration = carry
        return jax.lax.cond(
            iteration >= max_iter,
            lambda _: False,
            lambda args: cond_fun(*args),
            (z_prev, z),
        )

    def body_fun(carry):
        _, z, iteration = carry
        return z, f(z), iteration + 1

    init_carry = (
        z_init,
        f(z_init),
        1,
    )
    _, z_star, metrics = lax.while_loop(_cond_fun, body_fun, init_carry)
    return z_star, metrics


# Explicit differentiation function.
@partial(jit, static_argnums=(0, 3))
def fixed_point_solver_explicit(f, args, z_init, cond_fun, max_iter):
    z_star, metrics = fwd_solver_diffable(
        lambda z: f(z, *args), z_init, cond_fun, max_iter
    )
    return z_star, metrics


# Custom backprop function for iterative methods
@partial(jax.custom_vjp, nondiff_argnums=(0, 3))
@partial(jit, static_argnums=(0, 3))
def fixed_point_solver_implicit(f, args, z_init, cond_fun, max_iter=300):
    z_star, metrics = fwd_solver(
        lambda z: f(z, *args), z_init, cond_fun, max_iter=max_iter,
    )
    return z_star, metrics


def fixed_point_solver_fwd(f, args, z_init, cond_fun, max_iter):
    z_star, metrics = fixed_point_solver_implicit(f, args, z_init, cond_fun, max_iter)
    return (z_star, metrics), (z_star, args)


def fixed_point_solver_bwd(f, _, res, z_star_bar):
    z_star, args = res
    z_star_bar = z_star_bar[0]  # we dont take the gradient w.r.t metric

    _, vjp_a = jax.vjp(lambda args: f(z_star, *args), args)
    _, vjp_z = jax.vjp(lambda z: f(z, *args), z_star)
    res = vjp_a(
        fwd_solver(
            lambda u: vjp_z(u)[0] + z_star_bar,
            jnp.zeros_like(z_star),
            lambda z_prev, z: jnp.linalg.norm(z - z_prev) > 1e-5,
            max_iter=5000,
        )[0]
    )
    return (*res, None, None)  # None for init and max_iter


fixed_point_solver_implicit.defvjp(fixed_point_solver_fwd, fixed_point_solver_bwd)


if __name__ == "__main__":
    import traceback

    def err_line(fn, *args):
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return type(e).__name__, frames[-1].lineno
        return None, None

    def g(z, a):
        return 0.5 * jnp.cos(z) + a

    def break_fn(z_prev, z):
        return jnp.linalg.norm(z - z_prev) > 1e-5

    a = jnp.array([0.1, 0.2, 0.3])
    z0 = jnp.zeros(3)

    # observed: line 41 raises TracerBoolConversionError: the loop test is a tracer
    assert err_line(fwd_solver_jittable_diffable, lambda z: g(z, a), z0, break_fn) == (  # tolerate: JIT102
        "TracerBoolConversionError", 41)
    # observed: line 58 raises TracerBoolConversionError: max_iterations is traced
    assert err_line(fwd_solver_diffable, lambda z: g(z, a), z0, break_fn, 500) == (  # tolerate: JIT101
        "TracerBoolConversionError", 58)
    assert err_line(fixed_point_solver_explicit, g, (a,), z0, break_fn, 500) == (  # tolerate: JIT101
        "TracerBoolConversionError", 58)
    # observed: line 52 raises TracerBoolConversionError once max_iterations is static:
    #   break_fn's result is a tracer too
    static_diffable = jax.jit(fwd_solver_diffable.__wrapped__, static_argnums=(0, 2, 3))
    assert err_line(static_diffable, lambda z: g(z, a), z0, break_fn, 500) == (  # tolerate: JIT102
        "TracerBoolConversionError", 52)

    # the lax-based solvers are fine under jit and grad
    z_star, n_iter = fixed_point_solver_implicit(g, (a,), z0, break_fn, 300)
    assert jnp.allclose(z_star, g(z_star, a), atol=1e-4)
    da = jax.grad(lambda a: fixed_point_solver_implicit(g, (a,), z0, break_fn, 300)[0].sum())(a)
    expected = 1.0 / (1.0 + 0.5 * jnp.sin(z_star))
    assert jnp.allclose(da, expected, atol=1e-3), (da, expected)
