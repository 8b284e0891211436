# source: https://github.com/IanQS/lif_numpy_to_jax/blob/28e3846f29d11c1ade870dd02f36026160f1ed78/case_studies/leaky_integrate_and_fire/jax_leaky_integrate_and_fire_2_jit.ipynb
#   (a JAX course's leaky integrate-and-fire case study, the notebook that moves the update
#   step under jit: cells 1, 3, 4 and 6)
# observed on jax 0.10.2 CPU: runs clean; the jitted `update_step` is called once per time step
#   from a Python loop with the same shapes, and the hyperparameters are traced scalars.
#   Stand-ins: the constants of the course's `lif_hparams.py` are written out, with `_t_max`
#   lowered from 100 to 1 (100 steps instead of 10000) and `num_simulations` from 3 to 2;
#   `weights.npy` (not stored) is a random 50x50 matrix; the unused `tqdm` import is left out.
# gap: other
import jax
import jax.numpy as jnp

from typing import TypeAlias
import time
import numpy as np

# lif_hparams.py
_dt = 0.01           # Time step (ms)
_t_max = 1        # Total time of simulation (ms)
_tau_m = 20.0       # Membrane time constant (ms)
_V_reset = -65.0    # Reset potential (mV)
_V_thresh = -50.0   # Threshold potential (mV)
_R = 1.0            # Membrane resistance (MΩ)
num_simulations = 2

W = np.random.default_rng(0).normal(size=(50, 50)) * 5.0


# Initial conditions
n_neurons = len(W)# Number of neurons in the network
_V = jnp.ones(n_neurons) * _V_reset  # Initial potentials

Mat: TypeAlias = jnp.ndarray
Vec: TypeAlias = jnp.ndarray 

@jax.jit
def update_step(
        V, W,
        # Hyperparameters
        v_thresh, v_reset, dt, tau_m, membr_R):
    fired = V >= v_thresh
    V = jnp.where(fired, v_reset, V)
    
    # Update voltages
    I_syn = W.dot(fired)  # Synaptic current from spikes
    dV = (dt / tau_m) * (-V + v_reset + membr_R * I_syn)
    V += dV

    # No self-inputs; neurons cannot spike themselves in this timestep
    V = jnp.where(fired, v_reset, V)
    return V, fired


def run_simulation(
    W: Mat,
    V: Vec,

    # Neuron Parameters
    tau_m: float,
    v_reset: float,
    v_thresh: float,
    membr_R: float,

    # How long do we run for? 
    t_max: float,
    dt: float, 

):
    # Simulation

    spike_train = []
    for i, t in enumerate(jnp.arange(0, t_max, dt)):
        if i == 0:
            continue
        V, fired = update_step(V, W, v_thresh, v_reset, dt, tau_m, membr_R )
        spike_train.append(fired)

    return spike_train

time_arr = []
for i in range(num_simulations):
    start = time.time()
    spike_train = run_simulation(
        jnp.asarray(W),
        _V,
        _tau_m, _V_reset, _V_thresh, _R,
        _t_max, _dt
    )
    np.asarray(spike_train)
    end = time.time()
    #print(f"Iteration {i} took: {end - start} seconds")
    time_arr.append(end - start)

print(f"Average Time: {np.mean(time_arr)}")
print(f"S.Dev Time: {np.std(time_arr)}")


if __name__ == "__main__":
    spikes = np.asarray(run_simulation(jnp.asarray(W), _V, _tau_m, _V_reset, _V_thresh, _R,
                                       _t_max, _dt))
    assert spikes.shape == (len(jnp.arange(0, _t_max, _dt)) - 1, n_neurons), spikes.shape
