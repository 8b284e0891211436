# source: https://github.com/Kamin-At/FIN553_Machine_Learning_in_finance/blob/d4f459fa151f0be47d8936748ae2bd2c98ff6239/Least_Squares_Monte_Carlo_option_pricing/553_Project_2_LSMC_with_JAX.ipynb
#   (a finance course homework, Part 1: a JAX version of a geometric Brownian motion
#   simulator for Longstaff-Schwartz option pricing; the student threads the PRNG key
#   through a jitted step with `nonlocal key`)
# observed on jax 0.10.2 CPU: step is traced once, on its first call: it reads the concrete
#   PRNGKey(0) from simulate's frame and bakes it into the compiled program, and
#   `nonlocal key` stores the trace's tracer into simulate's key (a leaked tracer). The 99
#   later calls hit the compilation cache, so the key never advances: every step applies
#   the same dZ, and all 100 growth factors S[t+1]/S[t] are identical. Added: the imports
#   of the notebook's first cell, and the __main__ block, which calls simulate() as the
#   notebook does and compares the growth factors (the %%time magics are dropped).
# gap: stale-state-attributes
import jax.numpy as jnp
import jax
from jax import lax


# Data
σ = 0.04
r = 0.01
K = 35

# Design choice
dt = 0.01
m = 100

def simulate():
  key = jax.random.PRNGKey(seed = 0)

  @jax.jit
  def step(S):
    nonlocal key
    key, subkey = jax.random.split(key)  # expect: JIT202  # tolerate: JIT201
    dZ = jax.random.normal(key=subkey, shape=S.shape) * jnp.sqrt(dt)
    dS = r * S  * dt + σ  * S  * dZ
    S = S + dS
    return S

  S0 = jnp.ones(200000)
  S = S0
  S_list = []
  for t in range(m):
    S = step(S)
    S_list.append(S)

  S_array = jnp.stack(S_list)
  return S_array


if __name__ == "__main__":
    simulated_paths = simulate()
    # observed: line 33 stores the trace's key in simulate's frame; the compiled step keeps
    #   PRNGKey(0), so every one of the 100 steps draws the same dZ
    growth = simulated_paths[1:] / simulated_paths[:-1]
    first = simulated_paths[0] / 1.0
    assert jnp.allclose(growth, first[None, :], rtol=1e-5)
    # the 200000 paths do differ from one another within a step
    assert float(jnp.std(first)) > 1e-3
