# source: https://github.com/Zaijab/data_science_utils/blob/07ec73934d9e5264bfb3e11f2ad510b591f6adf8/data_science_utils/filtering/enkf.py
#   (the ensemble Kalman filter update of the same repository, rewritten as a library
#   function: one eqx.filter_jit over the whole update, a jitted per-member update defined
#   inside it and vmapped with one key per member; AbstractMeasurementSystem and RangeSensor
#   from data_science_utils/measurement_functions/abc.py and norms.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; enkf_update compiles once for a filter run (the
#   inner jax.jit is traced inside the outer trace), `debug` is a static Python bool, and
#   norm_measurement's `key=None` and `if key is None` are decided while tracing.
# gap: exemption-vs-JAX
# added: the __main__ block (an Ikeda-map state, a 100-member ensemble, ten filter steps, a
#   compile count); dropped: norm_measurement's @jaxtyped(typechecker=beartype) decorator
#   (beartype is not installed); the three modules are inlined in one file.
import abc

import jax
import jax.numpy as jnp

import equinox as eqx
from jaxtyping import jaxtyped, Float, Key, Array


class AbstractMeasurementSystem(eqx.Module, strict=True):
    covariance: eqx.AbstractVar[Array]

    def __check_init__(self):
        # check Shape is square
        # check Positive Definite
        pass

    @abc.abstractmethod
    def __call__(self, state, key):
        """
        Generate a measurement from a state, potentially with noise.

        Args:
        - state: The state of the system to measure
        - key: The optional random key to generate noise
        """
        raise NotImplementedError


@jax.jit
def norm_measurement(
    state: Float[Array, "*batch_dim state_dim"],
    key: Key[Array, ""] | None = None,
    covariance: Float[Array, "1 1"] = jnp.array([[1.0]]),
) -> Float[Array, "1"]:
    perfect_measurement = jnp.linalg.norm(state)
    noise = 0 if key is None else jnp.sqrt(covariance) * jax.random.normal(key)
    return (perfect_measurement + noise).reshape(-1)


class RangeSensor(AbstractMeasurementSystem):
    covariance: Float[Array, "1 1"]

    def __call__(self, state, key=None):
        return norm_measurement(state, key, covariance=self.covariance)


@eqx.filter_jit
def enkf_update(
    key: Key[Array, "..."],
    ensemble: Float[Array, "batch_size state_dim"],
    measurement: Float[Array, "batch_size measurement_dim"],
    measurement_system: AbstractMeasurementSystem,
    inflation_factor: float = 1.01,
    debug: bool = False,
) -> Float[Array, "batch_size state_dim"]:
    mean = jnp.mean(ensemble, axis=0)

    if debug:
        jax.debug.print("{shape}", mean.shape)

    inflated = mean + inflation_factor * (ensemble - mean)

    ensemble_covariance = jnp.cov(inflated.T)

    @jax.jit
    def update_ensemble_point(
        point: Float[Array, "state_dim"], key: Key[Array, "..."]
    ) -> Float[Array, "state_dim"]:
        point_measurement = measurement_system(point)
        measurement_jacobian = jax.jacfwd(measurement_system)(point)
        innovation_covariance = (
            measurement_jacobian @ ensemble_covariance @ measurement_jacobian.T
            + measurement_system.covariance
        )
        kalman_gain = (
            ensemble_covariance
            @ measurement_jacobian.T
            @ jnp.linalg.inv(innovation_covariance)
        )
        point = point + (
            kalman_gain @ jnp.atleast_2d(measurement - point_measurement)
        ).reshape(-1)
        return point

    keys = jax.random.split(key, ensemble.shape[0])
    updated_ensemble = jax.vmap(update_ensemble_point)(inflated, keys)
    return updated_ensemble


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    def ikeda(x, u=0.9):
        t = 0.4 - 6 / (1 + x[0] ** 2 + x[1] ** 2)
        return jnp.array([1 + u * (x[0] * jnp.cos(t) - x[1] * jnp.sin(t)),
                          u * (x[0] * jnp.sin(t) + x[1] * jnp.cos(t))])

    sensor = RangeSensor(covariance=jnp.array([[1 / 16]]))
    key = jax.random.key(0)
    true_state = jnp.array([1.25, 0.0])
    key, subkey = jax.random.split(key)
    ensemble = true_state + 0.1 * jax.random.normal(subkey, (100, 2))
    for _ in range(10):
        key, measure_key, update_key = jax.random.split(key, 3)
        measurement = sensor(true_state, measure_key)
        ensemble = enkf_update(update_key, ensemble, measurement, sensor)
        ensemble = jax.vmap(ikeda)(ensemble)
        true_state = ikeda(true_state)
    assert ensemble.shape == (100, 2) and bool(jnp.all(jnp.isfinite(ensemble)))
    assert compiles.count("jit(enkf_update)") == 1, compiles
