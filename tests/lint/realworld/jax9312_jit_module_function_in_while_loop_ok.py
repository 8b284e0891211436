# source: https://github.com/jax-ml/jax/pull/9312 (the case the PR put into the JAX-101
#   tutorial docs/jax-101/02-jitting.md as "this is OK", commit 4833fbb672; the tutorial
#   before it called the same loop `g_inner_jitted_poorly`)
# observed on jax 0.10.2 CPU: runs clean: `jax.jit(unjitted_loop_body)` inside the while
#   loop wraps the same module-level function each time, and JAX finds its cached
#   compilation: the first call compiles a fixed few programs (3 on CPU: the body for the
#   first pass's weakly typed Python int, the body for the later int32 arrays, and an
#   eager op), not one per pass, and later calls, with n=20 or n=40, compile nothing. The
#   %timeit lines are left out; added: the __main__ block.
# gap: per-call-recompile
import jax

def unjitted_loop_body(prev_i):
  return prev_i + 1

def g_inner_jitted_normal(x, n):
  i = 0
  while i < n:
    # this is OK, since JAX can find the
    # cached, compiled function
    i = jax.jit(unjitted_loop_body)(i)
  return x + i


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  assert int(g_inner_jitted_normal(10, 20)) == 30
  loop_compiles = len(compiles)
  assert loop_compiles <= 4, loop_compiles
  assert int(g_inner_jitted_normal(10, 20)) == 30
  assert int(g_inner_jitted_normal(10, 40)) == 50
  assert len(compiles) == loop_compiles, (loop_compiles, len(compiles))
