# source: https://github.com/jax-ml/jax/pull/9312 (the "jit called in a loop" example it put
#   into the JAX-101 tutorial docs/jax-101/02-jitting.md, commit 4833fbb672)
# observed on jax 0.10.2 CPU: g_inner_jitted_partial and g_inner_jitted_lambda jit a new
#   function object (a fresh partial, a fresh lambda) on every pass of the while loop, so
#   each pass traces and compiles again: 20 compilations for n=20 in each function (the
#   tutorial: "Don't do this!"). The %timeit lines are left out; added: the __main__ block.
# gap: per-call-recompile
import jax
from functools import partial

def unjitted_loop_body(prev_i):
  return prev_i + 1

def g_inner_jitted_partial(x, n):
  i = 0
  while i < n:
    # Don't do this! each time the partial returns
    # a function with different hash
    i = jax.jit(partial(unjitted_loop_body))(i)  # expect: JIT301
  return x + i

def g_inner_jitted_lambda(x, n):
  i = 0
  while i < n:
    # Don't do this!, lambda will also return
    # a function with a different hash
    i = jax.jit(lambda x: unjitted_loop_body(x))(i)  # expect: JIT301
  return x + i


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  assert int(g_inner_jitted_partial(10, 20)) == 30
  # observed: line 19 compiles again on each of the 20 passes of the loop
  assert len(compiles) >= 20, len(compiles)
  before = len(compiles)
  assert int(g_inner_jitted_lambda(10, 20)) == 30
  # observed: line 27 compiles again on each of the 20 passes of the loop
  assert len(compiles) - before >= 20, len(compiles) - before
