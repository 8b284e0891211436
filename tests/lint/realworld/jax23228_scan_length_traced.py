# source: https://github.com/jax-ml/jax/pull/23228 (the example in the description)
# observed on jax 0.10.2 CPU: ConcretizationTypeError: the `length` argument to `scan`
#   expects a concrete int, and n is a traced argument of the jitted lambda. Added: the
#   imports.
# gap: other
import jax

jax.jit(lambda n, x: jax.lax.scan(lambda c, z: (c, z), x, (), length=n))(3, 1.)  # expect: JIT404
