# source: https://github.com/makkunda/pi-vae_inference_numpyro_jax/blob/f22e64f37fa87a9806ec3fe76dec347cfcb1adf1/src/models/phi.py (the `cdist` helper the author converted to JAX from tensorflow/tensorflow#56575 for a PiVAE feature layer used inside a numpyro model; added in e6a68ee "phi in jax", unchanged at HEAD)
# observed on jax 0.10.2 CPU: cdist(x, y) raises IndexError "Slice entries must be static integers. Got slice(JitTracer(int32[]), JitTracer(int32[]), None) at position 1" on line 13: `jax.lax.map` hands the lambda a traced row index `i`, so `x[:, i:(i+1), :]` is a slice with traced bounds (the jit around it makes `jnp.arange` traced too); `lax.dynamic_slice_in_dim(x, i, 1, axis=1)` or `x[:, i][:, None]` would be the fix. (The `perm=` keyword of `jnp.transpose` on line 17, a TensorFlow spelling, is never reached.)
# gap: other
# (kept: the imports and `cdist` as written; trimmed: the `PHI` flax module below it, whose mixed tab/space indentation does not parse; added: the __main__ block with small inputs)
from flax import linen as nn
import jax.numpy as jnp
import jax

# Source : https://github.com/tensorflow/tensorflow/issues/56575 converted to jax
@jax.jit
def cdist(x, y):
  # Calculate distance for a single row of x.
  per_x_dist = lambda i : jnp.linalg.norm(x[:,i:(i+1),:] - y, axis=2)  # expect: JIT404
  # Compute and stack distances for all rows of x.
  dist = jax.lax.map(per_x_dist,jnp.arange(0,jnp.shape(x)[1]))
  # Re-arrange stacks of distances.
  return jnp.transpose(dist, perm=[1, 0, 2])


if __name__ == "__main__":
    x = jnp.ones((2, 3, 4))
    y = jnp.zeros((2, 5, 4))
    print(cdist(x, y).shape)
