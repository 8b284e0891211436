# source: https://github.com/jax-ml/jax/issues/1832 (the maintainer's advice: func_jax with
#   lax.scan, jitted once outside the timing loop)
# observed on jax 0.10.2 CPU: runs clean and compiles once: jit(grad(func_jax)) is built a
#   single time and then called in the loop. Added: the imports kept from the comment
#   (ops is no longer in jax and is dropped), the jitted gradient and a loop standing in
#   for %timeit, which the comment cut off.
# gap: per-call-recompile
from jax import jit, grad
import jax.numpy as np
from jax import lax

def func_jax(x):
    def body(f_prev, x_i):
      return f_prev + x_i, f_prev + x_i
    _, f = lax.scan(body, 0., x)
    return np.sum(f)

grad_jax = jit(grad(func_jax))

if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    x = np.arange(10000.0)
    g = grad_jax(x)
    before = len(compiles)
    for _ in range(5):
        g = grad_jax(x)
    assert len(compiles) == before, compiles
    assert float(g[0]) == 10000.0 and float(g[-1]) == 1.0
