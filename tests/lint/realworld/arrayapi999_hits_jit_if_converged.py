# source: https://github.com/data-apis/array-api/pull/999 (a reviewer's experiment in the
#   review thread on spec/2025.12/tutorial_basic.md)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if is_converged(...)`: the
#   array namespace `xp` is jax.numpy, so under jax.jit the convergence test returns a
#   tracer. The reviewer's snippet is cut off after `if normalized:`; the rest of hits and
#   is_converged are the tutorial's own lines, `xp = jnp` is the tutorial's set-up, and
#   the call on a 10x10 matrix of ones is the tutorial's input.
# gap: types
import jax
import jax.numpy as jnp

xp = jnp

def hits(A, max_iter=100, tol=1.0e-8, normalized=True):
    A = xp.asarray(A)
    N = A.shape[0]
    h = xp.full(N, 1.0 / N)
    # Power iteration: make up to max_iter iterations
    for _i in range(max_iter):
        hprev = h
        a = hprev @ A
        h = A @ a
        h = h / xp.max(h)
        if is_converged(hprev, h, N, tol):  # expect: JIT101
            break
    else:
        raise Exception("Didn't converge")
    if normalized:
        h = h / xp.sum(xp.abs(h))
        a = a / xp.sum(xp.abs(a))
    return h, a

def is_converged(xprev, x, N, tol):
    err = xp.sum(xp.abs(x - xprev))
    return err < xp.asarray(N * tol)


jax.jit(hits)(xp.ones((10, 10)))
