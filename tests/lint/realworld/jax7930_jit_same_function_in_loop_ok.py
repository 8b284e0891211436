# source: https://github.com/jax-ml/jax/issues/7930 (the reporter's first snippet: `jit(f)`
#   of one module-level `f`, applied anew on every pass of a loop that shrinks the input)
# observed on jax 0.10.2 CPU: `jit(f)` inside the loop does not re-trace a function it has
#   seen: jit's cache is keyed on `f` itself, so the loop compiles once per new input shape
#   and a fresh `jit(f)` on a shape seen before compiles nothing; every result equals the
#   eager value.
# gap: exemption-vs-JAX
# added/changed: imports (`np` is jax.numpy, as the thread's `np.dot` on device arrays
#   implies); the loop runs 6 rounds from size 8 instead of 1000 from 1002, inside the
#   __main__ block; `get_gpu_memory()`, `time.sleep` and `xla._xla_callable.cache_clear()`
#   (a JAX internal that no longer exists) are left out; the checks are added.
import jax
import jax.numpy as np
from jax import jit


def f(x):
    return np.mean(np.dot(x, x.T))


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(k.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration"
        and k.get("fun_name") == "jit(f)" else None
    )

    size = 8
    outs = []
    for i in range(6):
        size -= 1
        a = np.ones([size, size])

        jit_f = None
        jit_f = jit(f)
        out = jit_f(a)
        outs.append((size, float(out)))

    # one compilation per distinct shape, each result the eager value
    assert len(compiles) == 6, compiles
    for size, out in outs:
        assert out == float(f(np.ones([size, size]))) == float(size)

    # a fresh jit(f) on a shape already seen reuses the compilation
    n = len(compiles)
    assert float(jit(f)(np.ones([4, 4]))) == 4.0
    assert len(compiles) == n
