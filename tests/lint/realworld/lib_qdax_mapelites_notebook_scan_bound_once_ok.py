# source: https://github.com/adaptive-intelligent-robotics/QDax/blob/ab13dbd127916de0cc83d8cef94fd1ae7dd106dd/examples/mapelites.ipynb
#   (the main-loop cell of the MAP-Elites notebook after commit ab13dbd1 "fix(jit): avoid
#   consecutive jits of same method in for loops (#122)", which binds
#   `map_elites_scan_update = map_elites.scan_update` once before the loop;
#   MAPElites.scan_update is copied from qdax/core/map_elites.py at the same commit)
# observed on jax 0.10.2 CPU: the scan receives the same bound method at every iteration
#   and compiles once for the whole loop (one jit(scan) backend compile, counted through
#   jax.monitoring).
#   Kept verbatim: the main-loop cell and scan_update. Stand-ins (qdax and brax are not
#   installed): MAPElites.update mutates a fitness array and keeps the better values, the
#   metrics function returns qd_score, max_fitness and coverage, the repertoire is that
#   fitness array, the emitter state is None, and CSVLogger keeps the logged rows in a list;
#   num_iterations is 40 instead of 1000.
# gap: per-call-recompile
import time
from functools import partial
from typing import Any, Optional, Tuple

import jax
import jax.numpy as jnp

MapElitesRepertoire = jax.Array
EmitterState = Any
RNGKey = jax.Array
Metrics = dict


def default_qd_metrics(repertoire):
    # stand-in for qdax.utils.metrics.default_qd_metrics
    return {
        "qd_score": jnp.sum(repertoire),
        "max_fitness": jnp.max(repertoire),
        "coverage": 100 * jnp.mean(repertoire > 0),
    }


class CSVLogger:
    # stand-in for qdax.utils.metrics.CSVLogger
    def __init__(self, filename, header):
        self.header = header
        self.rows = []

    def log(self, metrics):
        self.rows.append(metrics)


class MAPElites:
    # stand-in for qdax.core.map_elites.MAPElites, with scan_update verbatim
    def __init__(self, metrics_function):
        self._metrics_function = metrics_function

    def update(self, repertoire, emitter_state, random_key):
        random_key, subkey = jax.random.split(random_key)
        offspring = repertoire + jax.random.normal(subkey, repertoire.shape)
        repertoire = jnp.maximum(repertoire, offspring)
        metrics = self._metrics_function(repertoire)
        return repertoire, emitter_state, metrics, random_key

    @partial(jax.jit, static_argnames=("self",))
    def scan_update(
        self,
        carry: Tuple[MapElitesRepertoire, Optional[EmitterState], RNGKey],
        unused: Any,
    ) -> Tuple[Tuple[MapElitesRepertoire, Optional[EmitterState], RNGKey], Metrics]:
        """Rewrites the update function in a way that makes it compatible with the
        jax.lax.scan primitive.

        Args:
            carry: a tuple containing the repertoire, the emitter state and a
                random key.
            unused: unused element, necessary to respect jax.lax.scan API.

        Returns:
            The updated repertoire and emitter state, with a new random key and metrics.
        """
        repertoire, emitter_state, random_key = carry
        (repertoire, emitter_state, metrics, random_key,) = self.update(
            repertoire,
            emitter_state,
            random_key,
        )

        return (repertoire, emitter_state, random_key), metrics


if __name__ == "__main__":
    scan_compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: scan_compiles.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" and fun_name == "jit(scan)"
        else None)

    num_iterations = 40
    seed = 42
    random_key = jax.random.PRNGKey(seed)
    map_elites = MAPElites(metrics_function=default_qd_metrics)
    repertoire, emitter_state = jnp.zeros(64), None

    log_period = 10
    num_loops = int(num_iterations / log_period)

    csv_logger = CSVLogger(
        "mapelites-logs.csv",
        header=["loop", "iteration", "qd_score", "max_fitness", "coverage", "time"]
    )
    all_metrics = {}

    # main loop
    map_elites_scan_update = map_elites.scan_update
    for i in range(num_loops):
        start_time = time.time()
        # main iterations
        (repertoire, emitter_state, random_key,), metrics = jax.lax.scan(
            map_elites_scan_update,
            (repertoire, emitter_state, random_key),
            (),
            length=log_period,
        )
        timelapse = time.time() - start_time

        # log metrics
        logged_metrics = {"time": timelapse, "loop": 1+i, "iteration": 1 + i*log_period}
        for key, value in metrics.items():
            # take last value
            logged_metrics[key] = value[-1]

            # take all values
            if key in all_metrics.keys():
                all_metrics[key] = jnp.concatenate([all_metrics[key], value])
            else:
                all_metrics[key] = value

        csv_logger.log(logged_metrics)

    assert len(scan_compiles) == 1, scan_compiles
    assert all_metrics["qd_score"].shape == (num_iterations,)
