# source: https://github.com/jax-ml/jax/issues/9578
# observed on jax 0.10.2 CPU: raises ConcretizationTypeError in the one-argument jnp.where:
#   the number of matches, and so the output shape, depends on the traced data. Imports and
#   the call are added.
# gap: other
import jax
import jax.numpy as jnp

@jax.jit 
def idx_n_th_occurence(operand, occurence, n=0):
    arr = jnp.where(operand==occurence, operand, jnp.nan)
    return jnp.where(arr==arr)[n]  # expect: JIT403

idx_n_th_occurence(jnp.array([1., 3., 2., 3.]), 3.)
