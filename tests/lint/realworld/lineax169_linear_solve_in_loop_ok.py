# source: https://github.com/patrick-kidger/lineax/issues/169 (the reporter's MRE, adapted by
#   the reporter from the lineax docs' classical-solve example)
# observed on jax 0.10.2 CPU (lineax 0.1.1, equinox 0.13.8): runs clean; the reporter saw
#   `cache_miss` frames in an XProf trace of the loop and suspected recompilation, but after
#   the first call the five further calls of lx.linear_solve (filter-jitted inside lineax)
#   with the same operator and vector trace and compile nothing, which the __main__ block
#   counts through jax.monitoring. The `jax.profiler.trace` context around the loop is
#   left out (it writes a trace directory); the version prints are kept.
# gap: per-call-recompile
import lineax as lx
import equinox as eqx
import jax
from jax import random as jr

print("JAX version:", jax.__version__)
print("Equinox version:", eqx.__version__)
print("Lineax version:", lx.__version__)

# setting up inputs
matrix = jr.normal(jr.PRNGKey(0), (3, 3))
vector = jr.normal(jr.PRNGKey(1), (3,))
operator = lx.MatrixLinearOperator(matrix)

# compiling
lx.linear_solve(operator, vector)  # is already jitted in lineax function def'n
print("Compilation done.")


def run():
    # running five times
    for i in range(5):
        lx.linear_solve(operator, vector)


if __name__ == "__main__":
    events = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.append(name)
    )
    run()
    assert "/jax/core/compile/backend_compile_duration" not in events, events
    assert "/jax/core/compile/jaxpr_trace_duration" not in events, events
