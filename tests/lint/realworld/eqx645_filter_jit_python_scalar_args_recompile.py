# source: https://github.com/patrick-kidger/equinox/issues/645 (the reporter's second snippet)
# observed on jax 0.10.2 CPU (equinox 0.13.8, chex 0.1.92): "COMPILE" is printed on all ten
#   iterations. eqx.filter_jit treats Python scalars as static, so `2.0 * i` and `i` are
#   part of the cache key and every new loop value traces and compiles `f` again;
#   chex.assert_max_traces(1) under filter_jit does not report it. With @jax.jit (the
#   reporter's first snippet) both are traced and `f` compiles once. The __main__ block
#   counts the traces of three further calls. Added: nothing.
# gap: per-call-recompile
import chex
import equinox as eqx
import jax


@eqx.filter_jit
@chex.assert_max_traces(1)
def f(x, i):
    print("COMPILE")  # tolerate: JIT203
    return x * 2


for i in range(10):
    print(f(2.0 * i, i))  # expect: JIT301


if __name__ == "__main__":
    events = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.append(name)
    )
    for i in range(10, 13):
        f(2.0 * i, i)  # tolerate: JIT301
    # observed: line 22 passes new Python scalars, static under filter_jit, on every
    #   iteration: each call traces f again
    assert events.count("/jax/core/compile/jaxpr_trace_duration") == 3, events
