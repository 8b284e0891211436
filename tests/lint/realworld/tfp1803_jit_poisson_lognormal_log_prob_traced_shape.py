# source: https://github.com/tensorflow/probability/issues/1803 (the reporter's example)
# observed on jax 0.10.2 CPU with tfp-nightly 0.26.0.dev20261027 (JAX substrate): TypeError
#   "Shapes must be 1D sequences of concrete values of integer type, got JitTracer(int32[1])":
#   under jit the quadrature helper builds the reshape target
#   `tf.concat([[-1], tf.ones([batch_ndims])], 0)` with JAX operations, which return tracers
#   even on constants, and hands it to `tf.reshape` as a shape. The same log_prob runs
#   eagerly.
# gap: omnistaging
# unverifiable: needs tensorflow_probability (tfp-nightly on jax 0.10.2), which the test extra does not install (verified when collected, on jax 0.10.2 with tensorflow_probability (tfp-nightly on jax 0.10.2) installed)
from jax import jit
import tensorflow_probability.substrates.jax.distributions as tfd

jit(tfd.PoissonLogNormalQuadratureCompound(0.0, 1.0).log_prob)(1.)  # expect: JIT404
