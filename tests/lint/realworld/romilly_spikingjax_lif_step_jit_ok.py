# source: https://github.com/romilly/spiking-jax/blob/e01b5370f1cac86b96f60d93e05d3a6018939e3a/notebooks/lif-jax.ipynb
#   (a personal project simulating refractory leaky integrate-and-fire neurons with JAX:
#   the notebook's parameter cell, the `initial_state`/`step` cell and `jstep = jit(step)`,
#   as written. The `%timeit` cells are replaced by the __main__ block, with COUNT lowered
#   from 1000000 to 1000 and a short Python loop over time steps.)
# observed on jax 0.10.2 CPU: runs clean; `jit(step)` closes over the module's constant
#   parameters (never changed), uses `np.where` (jax.numpy) for the spike, reset and
#   refractory branches, and compiles once for a run of 200 steps; its results equal the
#   unjitted step's.
# gap: other
mv = 0.001
ms = 0.001
mmo = 0.001
na = 1E-9
megohm = 1E6

# typical neuron parameters
threshold = -50 * mv     # spike threshold [mV]
reset_voltage = -65 * mv  # reset potential [mV]
tau_m = 8. * ms     # membrane time constant [ms]
membrane_resistance = 10 * megohm    # membrane resistance [MOhm]
initial_potential = -75 * mv   # initial potential [mV]
resting_potential = -70 * mv      # resting potential [mV]
refactory_period = 3. * ms      # refractory time (ms)
I = 1.0 * na # base injection current [mA]

# simulation parameters
dt = 0.1 * ms  # Simulation time step [ms]
R_DUR = int(refactory_period / dt)

import jax.numpy as np


def initial_state(count):
    potentials = np.full(count, initial_potential)
    ts = np.zeros(count)
    injected_currents = na * (np.array(range(count)) + 1)
    return injected_currents, potentials, ts


def step(v, tr, injected_current):
    rv = np.full_like(v, reset_voltage)
    dv = ((resting_potential - v) + (injected_current * membrane_resistance)) * (dt / tau_m)
    spikes = v > threshold
    next_v = np.where(spikes, rv, v + dv)
    refactory = tr > 0
    next_v = np.where(refactory, rv, next_v)
    next_tr = np.where(refactory, tr - 1, tr)
    next_tr = np.where(spikes, R_DUR, next_tr)
    return next_v, next_tr, spikes


from jax import jit

jstep = jit(step)


if __name__ == "__main__":
    COUNT = 1000
    injected_currents, potentials, ts = initial_state(COUNT)
    v, tr = potentials, ts
    v_ref, tr_ref = potentials, ts
    total_spikes = 0
    for _ in range(200):
        v, tr, spikes = jstep(v, tr, injected_currents)
        v_ref, tr_ref, spikes_ref = step(v_ref, tr_ref, injected_currents)
        assert np.array_equal(spikes, spikes_ref)
        total_spikes += int(spikes.sum())
    assert np.allclose(v, v_ref) and np.array_equal(tr, tr_ref)
    assert total_spikes > 0
    assert jstep._cache_size() == 1  # one trace and compilation of `step` for all 200 calls
