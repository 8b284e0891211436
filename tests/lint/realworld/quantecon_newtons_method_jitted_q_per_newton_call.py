# source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/newtons_method.md
#   (QuantEcon's "Newton's Method via JAX" lecture, its multivariate section: a Newton
#   root finder whose update step q is jitted inside newton, applied to a market
#   equilibrium and a multivariate Solow model; the lecture times a second call with the
#   comment "# Now we time it without compile")
# observed on jax 0.10.2 CPU: every call of newton builds a new closure q and jits it, so
#   each call compiles q again: the second, "without compile" call of the Solow example
#   compiles jit(q) again as the first did, and so does each pass of the loop over the
#   starting values (passing the same function object as f does not help: q itself is
#   new). Left out: the univariate section and its plot, the scipy.optimize
#   comparison, the jax_enable_x64 cells and the %time/%%time magics (the timed
#   statements are kept as plain calls); dim 5_000 -> 50 for the market example.
#   Added: the __main__ block, which counts compilations through jax.monitoring.
# gap: per-call-recompile
import jax
import jax.numpy as jnp


def e(p, A, b, c):
    return jnp.exp(- A @ p) + c - b * jnp.sqrt(p)


def newton(f, x_0, tol=1e-5, max_iter=15):
    """
    A multivariate Newton root-finding routine.

    """
    x = x_0
    f_jac = jax.jacobian(f)
    @jax.jit  # expect: JIT301
    def q(x):
        " Updates the current guess. "
        return x - jnp.linalg.solve(f_jac(x), f(x))
    error = tol + 1
    n = 0
    while error > tol:
        n += 1
        if(n > max_iter):
            raise Exception('Max iteration reached without convergence')
        y = q(x)
        error = jnp.linalg.norm(x - y)
        x = y
        print(f'iteration {n}, error = {error}')
    return x


dim = 50
seed = 32

# Create a random matrix A and normalize the rows to sum to one
key = jax.random.key(seed)
A = jax.random.uniform(key, [dim, dim])
s = jnp.sum(A, axis=0)
A = A / s

# Set up b and c
b = jnp.ones(dim)
c = jnp.ones(dim)

init_p = jnp.ones(dim)

p = newton(lambda p: e(p, A, b, c), init_p).block_until_ready()

p = newton(lambda p: e(p, A, b, c), init_p).block_until_ready()

jnp.max(jnp.abs(e(p, A, b, c)))

A = jnp.array([[2.0, 3.0, 3.0],
               [2.0, 4.0, 2.0],
               [1.0, 5.0, 1.0]])
s = 0.2
α = 0.5
δ = 0.8
initLs = [jnp.ones(3),
          jnp.array([3.0, 5.0, 5.0]),
          jnp.repeat(50.0, 3)]


def multivariate_solow(k, A=A, s=s, α=α, δ=δ):
    return s * jnp.dot(A, k**α) + (1 - δ) * k


attempt = 1
for init in initLs:
    print(f'Attempt {attempt}: Starting value is {init} \n')
    k = newton(lambda k: multivariate_solow(k) - k, \
                     init).block_until_ready()
    print('-'*64)
    attempt += 1

multivariate_solow(k) - k

A = jnp.array([[2.0, 0.0, 0.0],
               [0.0, 2.0, 0.0],
               [0.0, 0.0, 2.0]])
s = 0.3
α = 0.3
δ = 0.4
init = jnp.repeat(1.0, 3)
k = newton(lambda k: multivariate_solow(k, A=A, s=s, α=α, δ=δ) - k, \
                 init).block_until_ready()

# Now we time it without compile
k = newton(lambda k: multivariate_solow(k, A=A, s=s, α=α, δ=δ) - k, \
                 init).block_until_ready()


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    def solow_gap(k):
        return multivariate_solow(k, A=A, s=s, α=α, δ=δ) - k

    # observed: line 30 jits a new q on every newton call: a second call with the same f
    #   and the same starting value compiles jit(q) again, as often as the first call did
    k1 = newton(solow_gap, init)
    first = compiles.count("jit(q)")
    k2 = newton(solow_gap, init)
    assert first >= 1 and compiles.count("jit(q)") == 2 * first, compiles
    assert jnp.allclose(k1, k2)
    assert jnp.allclose(solow_gap(k1), 0.0, atol=1e-4)
