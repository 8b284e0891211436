# source: https://github.com/patrick-kidger/diffrax/issues/517
# observed on jax 0.10.2 CPU: runs clean. The reporter's two simulations of
#   dy = -y dt + 0.2 dW: `diffrax_simu` (a jitted `diffeqsolve` with a VirtualBrownianTree
#   over the module-level `key`) and `homemade_simu` (a jitted `lax.scan` Euler loop whose
#   increments are drawn once from the same `key`, on purpose: one reference path). Both
#   close over module-level constants that are never rebound, take no arguments and
#   compile once. Added: the matplotlib plot and the notebook's `%timeit` lines are cut
#   and replaced by the __main__ block, which calls each function twice and checks shapes
#   and that each compiles once.
# tolerated after the first scoring: line 54 calls the jitted function that closes over
#   the module-level key again: the same draws, which JAX's key-reuse checker rejects
#   (checked with a typed key) and which the __main__ block means to compare.
# gap: other
import diffrax as dx
import jax
import jax.numpy as jnp

# === simulation parameters
key = jax.random.PRNGKey(42)
t0 = 0
t1 = 1
y0 = 1.0
ndt = 101
dt = (t1 - t0) / (ndt - 1)
drift = lambda t, y, args: -y
diffusion = lambda t, y, args: 0.2

# === diffrax euler
brownian_motion = dx.VirtualBrownianTree(t0, t1, tol=1e-3, shape=(), key=key)
solver = dx.Euler()
terms = dx.MultiTerm(dx.ODETerm(drift), dx.ControlTerm(diffusion, brownian_motion))
saveat = dx.SaveAt(ts=jnp.linspace(t0, t1, ndt))

@jax.jit
def diffrax_simu():
    return dx.diffeqsolve(terms, solver, t0, t1, dt0=dt, y0=y0, saveat=saveat).ys

# === homemade euler
@jax.jit
def homemade_simu():
    dWs = jnp.sqrt(dt) * jax.random.normal(key, (ndt,))

    def step(y, dW):
        dy = drift(None, y, None) * dt + diffusion(None, y, None) * dW
        return y + dy, y

    return jax.lax.scan(step, 1.0, dWs)[-1]


if __name__ == "__main__":
    a1 = diffrax_simu()
    a2 = diffrax_simu()
    b1 = homemade_simu()  # tolerate: JIT502
    b2 = homemade_simu()  # tolerate: JIT502
    assert a1.shape == (ndt,) and b1.shape == (ndt,)
    assert jnp.all(jnp.isfinite(a1)) and jnp.all(jnp.isfinite(b1))
    assert jnp.array_equal(a1, a2) and jnp.array_equal(b1, b2)
    assert diffrax_simu._cache_size() == 1
    assert homemade_simu._cache_size() == 1
