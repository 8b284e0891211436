# source: https://github.com/jax-ml/jax/issues/13838
# observed on jax 0.10.2 CPU: `jax.make_jaxpr(jax.lax.integer_pow)(x, y)` raises TypeError
#   ("parameters to jaxpr equations must have __hash__ and __eq__ methods ... the value of
#   parameter y was not hashable: JitTracer(~int32[])"): make_jaxpr traces every argument,
#   the Python int exponent included, and integer_pow needs it as a static Python int. (In
#   the report, on jax 0.4.1, the traced exponent raised ConcretizationTypeError in `bool`.)
# gap: omnistaging
import jax

x: float = jax.numpy.arange(100, dtype=float)
y: int = 4

jax.make_jaxpr(jax.lax.integer_pow)(x, y)  # expect: JIT404  # tolerate: JIT302
