# source: https://github.com/Zaijab/data_science_utils/blob/341b1779206409ea8d8f38323407bb2903b6a3d1/data_science_utils/filtering/enkf.py
#   (a researcher's ensemble Kalman filter script on the Ikeda map, first version of
#   enkf.py; the later enkf_update of commit 07ec739 builds the update once under
#   eqx.filter_jit and gives every ensemble member its own key)
# observed on jax 0.10.2 CPU: the loop defines and jits a new update_ensemble_point on
#   every iteration, so it is compiled again 10 times; the key is bound as
#   the default of `key` and jax.vmap maps over `point` alone, so all 100 ensemble
#   members draw the same measurement perturbation, and the same line then splits that
#   key again, handing the caller the subkey the update already drew from.
# gap: per-call-recompile
# added: the imports; stand-ins for what the notebook defined in earlier cells: `key`,
#   `measurement_covariance` (1/16), `measure` (the range of the state), `ikeda_update`
#   (the Ikeda map with u = 0.9), and no-op `plot_ikeda_points` and `plt.show`; a
#   jax.monitoring listener that records compiles (before the script, to count them); the
#   __main__ block.
import types

import jax
import jax.monitoring
import jax.numpy as jnp
from jax import jit

_compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, _secs, **kw: _compiles.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

key = jax.random.PRNGKey(0)
measurement_covariance = 1 / 16


def measure(state):
    return jnp.linalg.norm(state)


def ikeda_update(x, u=0.9):
    t = 0.4 - 6 / (1 + x[0] ** 2 + x[1] ** 2)
    return jnp.array([1 + u * (x[0] * jnp.cos(t) - x[1] * jnp.sin(t)),
                      u * (x[0] * jnp.sin(t) + x[1] * jnp.cos(t))])


def plot_ikeda_points(points):
    pass


plt = types.SimpleNamespace(show=lambda: None)


@jit
def update_ensemble_point(point, key=key):
    key, subkey = jax.random.split(key)
    ensemble_measurement = measure(point) + measurement_covariance * jax.random.normal(subkey)
    measurement_jacobian = jax.grad(measure)(point)
    innovation_covariance = measurement_jacobian @ ensemble_covariance @ measurement_jacobian.T + measurement_covariance
    kalman_gain = ensemble_covariance @ measurement_jacobian.T * ((innovation_covariance) ** (-1))
    point = point + kalman_gain * (measurement - ensemble_measurement)
    return point

true_state = jnp.array([1.25, 0])
prior_state = jnp.array([1.25, 0])

for _ in range(10):
    key, subkey = jax.random.split(key)
    measurement = measure(true_state) + 1/16 * jax.random.normal(subkey)

    num_samples = 100
    inflation_factor = 1.01
    key, subkey = jax.random.split(key)
    ensemble = prior_state + 1/16 * jax.random.normal(subkey, shape=(num_samples,2))
    
    mean = jnp.mean(ensemble, axis=0)
    ensemble = mean + inflation_factor * (ensemble - mean)
    
    ensemble_covariance = (1 / (num_samples - 1)) * (ensemble - mean).T @ (ensemble - mean)

    @jit  # expect: JIT301
    def update_ensemble_point(point, key=key):
        
        key, subkey = jax.random.split(key)
        ensemble_measurement = measure(point) + measurement_covariance * jax.random.normal(subkey)
        
        measurement_jacobian = jax.grad(measure)(point)
        
        innovation_covariance = measurement_jacobian @ ensemble_covariance @ measurement_jacobian.T + measurement_covariance
        kalman_gain = ensemble_covariance @ measurement_jacobian.T  * ((innovation_covariance) ** (-1))
        point = point + kalman_gain * (measurement - ensemble_measurement)
        return point

    test_ensemble = ensemble
    ensemble = jax.vmap(update_ensemble_point)(ensemble);key, subkey = jax.random.split(key)  # expect: JIT502


    plot_ikeda_points([
        {'x':0,'y':0,'c':'red','label':'Measurement', 's':100},
        {'x':jnp.mean(ensemble[..., 0]), 'y':jnp.mean(ensemble[...,1]), 'c':'purple', 'label':'Estimate', 's':100},
        {'x':true_state[0], 'y':true_state[1], 'c':'lime', 'label':'True State', 'label':'True State', 's':100},
    ])
    plt.show()
    
    true_state = ikeda_update(true_state)
    prior_state = ikeda_update(prior_state)
    true_measurement = measure(true_state) + 1/16 * jax.random.normal(subkey);key, subkey = jax.random.split(key)


if __name__ == "__main__":
    # observed: line 77 jits the update defined in the loop body: it compiles once per
    # iteration, 10 times in 10 iterations
    assert _compiles.count("jit(update_ensemble_point)") == 10, _compiles
    # observed: line 91 maps over the points only, so every member perturbs its predicted
    # measurement with the draw of the one default key: identical members stay identical
    same = jnp.tile(test_ensemble[:1], (5, 1))
    out = jax.vmap(update_ensemble_point)(same)  # tolerate: JIT502
    assert bool(jnp.all(out == out[0]))
    # with a key per member (the later enkf_update splits one per member) they differ
    default_key = update_ensemble_point.__wrapped__.__defaults__[0]
    out = jax.vmap(update_ensemble_point)(same, jax.random.split(default_key, 5))
    assert len(set(out[:, 0].tolist())) == 5
