# source: https://github.com/halfroad/JAX/blob/2b208212a13ce7d05e514ff6de5e6cb369fdf5a9/Chapters/06/6.2/JaxPerformanceBolster/6.2.3/GraspJaxPrecompileCahce/TracePartialTimeConsumedFunctionsOnly.py
#   (a JAX book's example on the compilation cache; its comment says "Don't use following
#   function")
# observed on jax 0.10.2 CPU: runs clean and compiles loop_body once for the 20 iterations:
#   `jax.jit(loop_body)` wraps the same module-level function object each time, so every
#   call after the first finds the cached executable (the Python int 0 and the weak-typed
#   int32 arrays that follow share one cache key). This is the case JAX's documentation
#   calls fine, as opposed to jitting a fresh lambda or partial in the loop. Added: the
#   __main__ block's compile count.
# gap: per-call-recompile
import jax


def loop_body(previous_i):

    return previous_i + 1

def g_inner_jitted(x, n):

    i = 0

    while i < n:

        # Don't use following function
        jit_loop_body = jax.jit(loop_body)
        i = jit_loop_body(i)

    return x + i

def main():

    result = g_inner_jitted(10, 20)

    print(result)

if __name__ == '__main__':

    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    main()

    assert compiles.count("jit(loop_body)") == 1, compiles
    assert int(g_inner_jitted(10, 20)) == 30
    assert compiles.count("jit(loop_body)") == 1, compiles
