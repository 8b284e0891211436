# source: https://github.com/jax-ml/jax/issues/21824 (the reporter's one-line example; tracers
#   were made unhashable by jax-ml/jax#24722, which closed the issue)
# observed on jax 0.10.2 CPU: TypeError "unhashable type: 'DynamicJaxprTracer'": jit traces
#   the Python int, and hash() of a tracer needs a concrete value. (In the report, on jax
#   0.4.29, it ran without error: tracers were hashable then.)
# gap: exemption-vs-JAX
import jax

jax.jit(hash)(1)  # expect: JIT401
