# source: https://github.com/jax-ml/jax/pull/1605 (the repro in the description, which
#   OOMed before the fix of the cache's lifetime)
# observed on jax 0.10.2 CPU: every iteration jits a new lambda, so every iteration
#   compiles again (40 compiles of the same computation); the pull request fixed only
#   the memory kept by the dead cache entries. `np` is jax.numpy in the repro; the
#   imports and the __main__ block (which counts compiles over the same loop) are added.
# gap: per-call-recompile
import jax
import jax.numpy as np
from jax import jit

for i in range(40):
  f = jit(lambda: 1. * np.ones((300, 1024, 1024)))  # expect: JIT301
  f().block_until_ready()


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for i in range(3):
      f = jit(lambda: 1. * np.ones((300, 1024, 1024)))  # tolerate: JIT301
      f().block_until_ready()
    # observed: line 13 jits a fresh lambda per iteration: three iterations, three compiles
    assert len(compiles) >= 3, compiles
