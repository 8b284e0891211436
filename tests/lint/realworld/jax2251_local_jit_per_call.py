# source: https://github.com/jax-ml/jax/issues/2251
# observed on jax 0.10.2 CPU: the "local" version re-creates and re-jits _pandemic_scan on
#   every call of pandemic_scan, so every call compiles again (the user measured 272 ms
#   against 141 us). `infect`, InfectState, x0 and a were elided in the report and are
#   filled with the smallest stand-ins that run.
# gap: per-call-recompile
import functools
from typing import NamedTuple

import jax.numpy as np
from jax import jit, lax


class InfectState(NamedTuple):
    x: np.ndarray
    a: np.ndarray


x0 = np.ones(3)
a = np.full(3, 0.5)


def infect(state, step):
    return InfectState(state.x * state.a + step, state.a), state.x.sum()


def pandemic_scan(state, step=1, t=0, T=5):

    @functools.partial(jit, static_argnums=(1,2,3))  # expect: JIT301
    def _pandemic_scan(state, step, t, T):
        return lax.scan(
            infect,
            InfectState(x0, a),
            np.full(T,step)
        )

    return _pandemic_scan(state, step, t, T)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    state = InfectState(x0, a)
    pandemic_scan(state, T=5)
    before = len(compiles)
    for _ in range(3):
        pandemic_scan(state, T=5)
    # observed: line 29 compiles again on each of the 3 later calls
    assert len(compiles) - before >= 3, compiles
