import jax
import jax.numpy as jnp


def _is_converged(delta, step, tol, max_steps):
    return delta < tol or step >= max_steps  # expect: JIT103


def _is_converged_ok(delta, step, tol, max_steps):
    return (delta < tol) | (step >= max_steps)


def solve(f, x0, tol=1e-6, max_steps=50):
    def cond(c):
        x, delta, step = c
        return ~_is_converged_ok(delta, step, tol, max_steps)

    def body(c):
        x, _, step = c
        x_new = f(x)
        return x_new, jnp.abs(x_new - x), step + 1

    return jax.lax.while_loop(cond, body, (x0, jnp.inf, 0))[0]


@jax.jit
def check(delta, step):
    done = _is_converged(delta, step, 1e-6, 50)
    return jnp.asarray(done)
