# source: https://github.com/google/flax/issues/4848
# observed on jax 0.10.2 CPU: runs clean. With flax 0.12.8, `runjit = nnx.jit(run)` is made once
#   before the loop and every pass of the loop calls the same jitted function with the same
#   module and input, so it compiles on the first pass only (the report is about GPU memory, not
#   about the jit). The report's top-level `while True:` loop is put in a function
#   `poll(n_passes)` with a pass counter so that it ends (one pass, then four); its body and its
#   `print(time.time() - tt)` are kept; the os.environ line is kept; added: the __main__ block
#   that counts compilations around the loop, and B and D are made small (128, 2048 in the
#   report) so the file runs quickly on CPU.
# gap: per-call-recompile
import os
os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
import time

import jax
from flax import nnx
from jax import numpy as jnp

B = 8
D = 16

x = jnp.ones((B, D),dtype=jnp.float32)
# Total memory usage after x : 557Mb

m = nnx.Linear(D, D, rngs=nnx.Rngs(0))
# Total memory usage after m : 593Mb


def run(m, q):
    return m(q)


runjit = nnx.jit(run)


def poll(n_passes):
    passes = 0
    while passes < n_passes:
        tt = time.time()
        y = runjit(m, x)
        jax.block_until_ready(y)
        # total memory after y : 755Mb
        print(time.time() - tt)
        passes += 1
    return y


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    y = poll(1)
    first = len(compiles)
    y = poll(4)
    assert len(compiles) == first, (first, len(compiles))
    assert jnp.allclose(y, m(x))
