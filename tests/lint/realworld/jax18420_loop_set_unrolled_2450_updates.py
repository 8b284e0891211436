# source: https://github.com/jax-ml/jax/issues/18420
# observed on jax 0.10.2 CPU: loop_set's `for k in range(npair)` runs 2450 times while the
#   function is traced, so the jitted program holds 2450 gather/scatter groups (the reporter
#   notes its compilation "is much slower as expected"); broadcast_set, the scatter of all
#   pairs at once, gives the same matrix from a handful of equations. The module-level loop
#   that builds ip and jp runs eagerly and is fine. Changed: `from jax.config import config`
#   is `jax.config.update` now; added: the __main__ block (the report's timing code is cut
#   in the stored copy; the block checks broadcast_set without compiling loop_set, which
#   takes over a minute).
# gap: other
import jax
import jax.numpy as jnp
from time import time
jax.config.update("jax_enable_x64", True)


npart = 50

npair = npart * (npart - 1)
k = jnp.arange(npair)
ip = jnp.empty(npair, dtype=int)
jp = jnp.empty(npair, dtype=int)
k = 0
for i in range(npart):
    for j in range(npart):
        if (i != j):
            ip = ip.at[k].set(i)
            jp = jp.at[k].set(j)
            k += 1

key = jax.random.PRNGKey(17)
key, key_input = jax.random.split(key)


@jax.jit
def loop_set(pf):
    Rho = jnp.zeros((npart+1, npart+1), dtype='complex128')
    for k in range(npair):  # expect: JIT303
        Rho = Rho.at[ip[k], jp[k]].set(pf[k])
    return Rho


@jax.jit
def broadcast_set(pf):
    Rho = jnp.zeros((npart+1, npart+1), dtype='complex128')
    Rho = Rho.at[ip, jp].set(pf)
    return Rho


pf = jax.random.normal(key_input, shape=[npair])


if __name__ == "__main__":
    loop_jaxpr = jax.make_jaxpr(loop_set)(pf).jaxpr.eqns[0].params["jaxpr"].jaxpr
    bcast_jaxpr = jax.make_jaxpr(broadcast_set)(pf).jaxpr.eqns[0].params["jaxpr"].jaxpr
    # observed: line 38 unrolls 2450 updates into the traced program
    assert len(loop_jaxpr.eqns) > 2 * npair, len(loop_jaxpr.eqns)
    assert len(bcast_jaxpr.eqns) < 50, len(bcast_jaxpr.eqns)

    t = time()
    a = broadcast_set(pf).block_until_ready()
    print("broadcast_set", time() - t)
    assert jnp.allclose(a[ip, jp], pf)
