# source: https://github.com/jax-ml/jax/issues/7155 (the example that opened the issue,
#   rerun in the 2023 comment that closed it)
# observed on jax 0.10.2 CPU: runs clean: the jitted inner_fn called ten times inside the
#   jitted outer_fn is traced once and each function compiles once. The prints are the
#   user's deliberate trace-time markers, so they are tolerated.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
from functools import partial

@jax.jit
def inner_fn(state):
    print("entering inner_fn now")  # tolerate: JIT203
    return 2*state

@jax.jit
def outer_fn(x):
    print("entering outer_fn now")  # tolerate: JIT203
    old_x = x
    for _ in range(10):
        x = inner_fn(x)
    x = x + old_x
    return x

with jax.log_compiles(True):
    state = jnp.arange(5, dtype=jnp.uint32)
    inner_fn(state)
    outer_fn(state)


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        outer_fn(state + 1)
        inner_fn(state + 1)
    assert out.getvalue() == "", out.getvalue()
    assert int(outer_fn(state)[1]) == 1025
