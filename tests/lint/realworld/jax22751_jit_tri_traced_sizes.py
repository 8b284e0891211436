# source: https://github.com/jax-ml/jax/issues/22751 (the reporter's one-line repro; fixed by
#   jax-ml/jax#22779, which makes it a concretization error)
# observed on jax 0.10.2 CPU: TypeError inside jnp.tri, "Shapes must be 1D sequences of
#   concrete values of integer type, got (JitTracer(~int32[]), JitTracer(~int32[]))": jax.jit
#   of jnp.tri as it is traces the Python ints N, M and k, so the matrix's sizes are tracers.
#   (In the report, on jax 0.4.31, it surfaced as an underflow ValueError in min.)
# gap: omnistaging
import jax
jax.jit(jax.numpy.tri)(3, 3, 0)  # expect: JIT404
