# source: https://github.com/jax-ml/jax/pull/24315 (the session in the description)
# observed on jax 0.10.2 CPU: TypeError: JAX arrays are immutable and do not support
#   in-place item assignment, at `x[0] = 1`.
# gap: other
import jax
x = jax.numpy.arange(4)
x[0] = 1  # expect: JIT501
