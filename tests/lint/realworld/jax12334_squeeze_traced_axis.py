# source: https://github.com/jax-ml/jax/pull/12334 (the quick test in the description, for
#   the report in jax#12331)
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jnp.squeeze: under jit the axis
#   `jax.numpy.array(1)`, a constant, is a tracer ("expected a static index or sequence of
#   indices").
# gap: omnistaging
import jax

def f(x):
  return jax.numpy.squeeze(x, jax.numpy.array(1))  # expect: JIT404

jax.jit(f)(jax.numpy.arange(5))
