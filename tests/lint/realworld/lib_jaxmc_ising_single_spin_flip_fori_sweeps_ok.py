# source: https://github.com/riccardo-rende/jaxmc/tree/02368dd33d7450a74b250d780a43f2cae693220f
#   (a physicist's small Monte Carlo package for a 1D Ising chain: jaxmc/lattice.py,
#   jaxmc/hamiltonian.py, jaxmc/montecarlo.py and main.py at that commit, put into one file;
#   the package-internal imports are dropped and `from jax.config import config` (removed
#   from JAX) is spelled jax.config)
# observed on jax 0.10.2 CPU: runs clean. mc_sweeps runs the jitted sweep under
#   lax.fori_loop; each sweep splits the key held in the MonteCarloState once and draws all
#   its random numbers from the subkey; the per-site steps are jitted and pick the site from
#   a traced index and accept with lax.cond; `for j in neighbours[i]` loops over a row of
#   two traced neighbours, `for k in range(L)` over the static chain length; energy keeps the
#   local-energy function static (static_argnums=(2,)). The energy per site averages near
#   -tanh(0.5) (the acceptance exp(-0.5*de) samples beta = 0.5), the acceptance near 0.55.
# gap: other
# added: the __main__ block runs main.py's script with 10**3 sweeps instead of 10**6 (and
#   checks the results instead of timing them).
from typing import Any, Callable
from functools import partial
from flax import struct

import jax
import jax.numpy as jnp

import time


@struct.dataclass
class LatticeState():
    spins: jnp.ndarray
    neighbours: jnp.ndarray
    L: int


@jax.jit
def e_local_nn_1d(i:int, spins: jnp.array, neighbours: jnp.array):
    L = jnp.size(spins)
    el = 0.0
    for j in neighbours[i]:
        el = el + spins[j]
    
    el = - el * spins[i]
    return el

@partial(jax.jit, static_argnums=(2,))
def energy(spins: jnp.array, neighbours: jnp.array, e_local: Callable) -> float:
    def body_fn(i:int, vals: tuple[jnp.ndarray, jnp.ndarray], e_local: Callable):
        e, spins = vals
        return [e + e_local(i, spins, neighbours), spins]

    L = jnp.size(spins)

    init_vals = [0.0, spins]
    vals = jax.lax.fori_loop(0, L, partial(body_fn, e_local=e_local), init_vals)
    return 0.5 * vals[0]


@struct.dataclass
class SingleSpinFlipState():
    acc_call: int
    tot_call: int

@struct.dataclass
class MonteCarloState():
    key: jnp.array

@jax.jit
def single_spin_flip_step(i: int, vals: tuple[jnp.array, jnp.array, MonteCarloState, SingleSpinFlipState, jnp.ndarray]):
    spins, neighbours, mc, a, rands = vals
    L = jnp.size(spins)

    a = a.replace(tot_call=a.tot_call+1)

    index = (rands[i, 0] * L).astype(int)
    de = -2.0 * e_local_nn_1d(index, spins, neighbours)
    rand = rands[i, 1]

    def accepted_func(vals):
        index, spins, a = vals
        spins = spins.at[index].set(-spins[index]) # FLIP
        a = a.replace(acc_call=a.acc_call+1)
        return spins, a

    def refused_func(vals):
        index, spins, a = vals
        return spins, a

    spins, a = jax.lax.cond(rand < jnp.exp(-0.5*de), accepted_func, refused_func, (index, spins, a))

    return [spins, mc, a]

@jax.jit
def sweep(i: int, vals: tuple[jnp.array, jnp.array, MonteCarloState, SingleSpinFlipState, dict]):
    spins, neighbours, mc, a, mean_values = vals

    L = jnp.size(spins)

    # Generate all the random numbers
    new_key, subkey = jax.random.split(mc.key, num=2)
    rand = jax.random.uniform(subkey, (L, 2))
    mc = mc.replace(key=new_key)

    for k in range(L):
        spins, mc, a = single_spin_flip_step(k, [spins, neighbours, mc, a, rand])

    mean_values["e"] = mean_values["e"] + energy(spins, neighbours, e_local_nn_1d)

    return [spins, neighbours, mc, a, mean_values]

def mc_sweeps(nsweeps: int, s: LatticeState, mc: MonteCarloState, a: SingleSpinFlipState):
    mean_values = {"e": 0.0}
    
    spins, _, mc, a, mean_values = jax.lax.fori_loop(0, nsweeps, sweep, [s.spins, s.neighbours, mc, a, mean_values])

    mean_values = jax.tree_util.tree_map(lambda x: x/nsweeps/s.L, mean_values)

    s = s.replace(spins=spins)

    return s, mc, a, mean_values


if __name__ == "__main__":
    jax.config.update('jax_platform_name', 'cpu')
    jax.config.update("jax_enable_x64", True)

    seed = 0
    L = 10

    nn = jnp.zeros((L, 2), dtype=int)
    for i in range(L):
        nn = nn.at[i, 0].set( (i+L-1)%L )
        nn = nn.at[i, 1].set( (i+1)%L )

    s = LatticeState(jnp.ones(L, dtype=jnp.float64), nn, L)
    a = SingleSpinFlipState(0, 0)
    mc = MonteCarloState(jax.random.PRNGKey(seed))

    s, mc, a, mean_values = mc_sweeps(10**3, s, mc, a)

    start = time.time()
    s, mc, a, mean_values = mc_sweeps(10**3, s, mc, a)
    print(f"time = {time.time()-start}")

    print(f"mean e={mean_values['e']}")
    print("acceptance=", a.acc_call / a.tot_call)
    assert -0.55 < float(mean_values["e"]) < -0.35
    assert 0.0 < float(a.acc_call / a.tot_call) < 1.0
