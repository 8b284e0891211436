# source: https://github.com/jax-ml/jax/issues/2072 (the reporter's loop, "Memory leak in a
#   simple loop with no side effects")
# observed on jax 0.10.2 CPU: `f` is jitted once, outside the loop, and called on inputs
#   whose second dimension shrinks; it compiles once per (x, y) shape pair, as intended (the
#   thread's growing memory is that compilation cache), reuses the compilation for a pair
#   seen before, and every result equals the eager one. Each draw has its own key
#   (`PRNGKey(i)`, `PRNGKey(j)`).
# gap: other
# added/changed: `from jax.api import jit` is now `from jax import jit`; `import jax`; the loops run over
#   4 and 3 sizes instead of 15000 each; the `print` of the progress is left out; the checks
#   and the __main__ block are added.
from jax import jit
from jax import random
from jax import numpy as np

import jax


def f(x, y):
  return np.mean(x.T @ y)

f_jit = jit(f)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(k.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration"
        and k.get("fun_name") == "jit(f)" else None
    )

    for i in range(4, 0, -1):
      x = random.normal(random.PRNGKey(i), (50, i))
      for j in range(3, 0, -1):
        y = random.normal(random.PRNGKey(j), (50, j))
        res = f_jit(x, y)
        assert np.allclose(res, f(x, y), atol=1e-5)

    # one compilation of f per (x, y) shape pair: 4 * 3
    assert len(compiles) == 12, compiles
    n = len(compiles)
    x = random.normal(random.PRNGKey(2), (50, 2))
    y = random.normal(random.PRNGKey(3), (50, 3))
    f_jit(x, y)
    assert len(compiles) == n
