# source: https://github.com/jax-ml/jax/pull/23229 (the example in the description)
# observed on jax 0.10.2 CPU: ConcretizationTypeError: the `unroll` argument to `scan`
#   expects a concrete `int` or `bool` value, and n is a traced argument of the jitted
#   lambda. Added: the import.
# gap: other
import jax

jax.jit(lambda n, x: jax.lax.scan(lambda c, z: (c, z), x, (), 10, unroll=n))(3, 1.)  # expect: JIT404  # tolerate: JIT401
