# source: https://github.com/jax-ml/jax/issues/2251 (the reporter's fast version: the jitted
#   function defined once at top level, called through a wrapper)
# observed on jax 0.10.2 CPU: runs clean and compiles once: later calls of pandemic_scan
#   hit the cache. `infect`, InfectState, x0 and a were elided in the report and are
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


@functools.partial(jit, static_argnums=(1,2,3))
def _pandemic_scan(state, step, t, T):
    return lax.scan(
        infect, 
        InfectState(x0, a), 
        np.full(T,step)
    )

def pandemic_scan(state, step=1, t=0, T=5):
    return _pandemic_scan(state, step, t, T)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    pandemic_scan(InfectState(x0, a), T=5)
    before = len(compiles)
    for _ in range(3):
        pandemic_scan(InfectState(x0, a), T=5)
    assert len(compiles) == before, compiles
