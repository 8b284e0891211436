# source: https://github.com/IanQS/lif_numpy_to_jax/blob/28e3846f29d11c1ade870dd02f36026160f1ed78/exercises/exe_06_sharp_edges.ipynb
#   (a JAX course's "Sharp Edges" exercise notebook, section "Tracing specific values", cells
#   19-20; the imports are the notebook's cell 2, trimmed to those used)
# observed on jax 0.10.2 CPU: `run_for_n(5, 3)` without jit prints 15; `jit(run_for_n)(5, n=3)`
#   raises TracerIntegerConversionError at `range(n)`: jit traces the keyword argument `n`
#   too. The notebook's solution passes `static_argnames=["n"]`.
# gap: other
from jax import jit


def run_for_n(x, n):
    accum = 0
    for i in range(n):  # expect: JIT104
        accum = accum + x
    return accum

print(run_for_n(5, 3))

jitted_run_n = jit(run_for_n)

print(jitted_run_n(5, n=3))
