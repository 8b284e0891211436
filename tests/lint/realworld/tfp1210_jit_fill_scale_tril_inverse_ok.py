# source: https://github.com/tensorflow/probability/issues/1210 (the reporter's example)
# observed on jax 0.10.2 CPU with tfp-nightly 0.26.0.dev20261027 (JAX substrate): runs clean
#   and returns the six zeros of log(diag(I)) and the lower triangle; the
#   ConcretizationTypeError in `fill_triangular_inverse` of the report is fixed in TFP.
#   `tensorflow_probability.experimental.substrates.jax` is spelled by its current name,
#   `tensorflow_probability.substrates.jax`; the check on the result is added.
# gap: exemption-vs-JAX
# unverifiable: needs tensorflow_probability (tfp-nightly on jax 0.10.2), which the test extra does not install (verified when collected, on jax 0.10.2 with tensorflow_probability (tfp-nightly on jax 0.10.2) installed)
import jax
import jax.numpy as jnp
from tensorflow_probability.substrates import jax as tfp
tfb = tfp.bijectors

@jax.jit
def transform(x):
    return tfb.FillScaleTriL(diag_bijector=tfb.Exp(), diag_shift=None).inverse(x)

out = transform(jnp.eye(3, dtype=jnp.float32))
assert out.shape == (6,) and float(jnp.abs(out).max()) == 0.0
