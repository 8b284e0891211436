# source: https://github.com/patrick-kidger/diffrax/issues/267
# observed on jax 0.10.2 CPU with diffrax: both solves now run (the reported vmap error no
#   longer occurs) and print zeros, the SDE having zero drift and diffusion. But the script
#   hands `key` to the first solve's VirtualBrownianTree and then splits the same key for the
#   batch: with JAX's partitionable threefry (the default) the key the first solve's Brownian
#   tree holds equals the batch's key 0, so the single path and the batch draw from
#   overlapping randomness. Added: the __main__ block that shows it.
# gap: flow-sensitive
import jax
from jax import numpy as jnp
from diffrax import diffeqsolve, ControlTerm, Euler, MultiTerm, ODETerm, SaveAt, VirtualBrownianTree

B = 20
D = 5

tol = 1e-3
dt0 = 0.05
T0 = 0.0
Tf = 1.0

def f(x0, key):
    drift = lambda t, x, args: jnp.zeros((D, ))
    diffusion = lambda t, x, args: jnp.zeros((D, D))
    brownian_motion = VirtualBrownianTree(T0, Tf, tol=tol, shape=x0.shape, key=key)
    terms = MultiTerm(ODETerm(drift), ControlTerm(diffusion, brownian_motion))
    solver = Euler()
    saveat = SaveAt(dense=True)
    sol = diffeqsolve(terms, solver, T0, Tf, dt0=dt0, y0=x0, saveat=saveat)
    return sol.evaluate(Tf)

x0 = jnp.zeros((D, ))
key = jax.random.key(1)
print(f(x0, key))

x0 = jnp.zeros((B, D))
key = jax.random.split(key, B)  # expect: JIT502
print(jax.vmap(f)(x0, key))


if __name__ == "__main__":
    first_key = jax.random.key(1)
    single_bm = VirtualBrownianTree(T0, Tf, tol=tol, shape=(D,), key=first_key)
    # observed: line 36 splits the key the first solve already gave its Brownian tree: that
    #   tree's key is the batch's key 0
    assert jnp.array_equal(jax.random.key_data(single_bm.key), jax.random.key_data(key[0]))
