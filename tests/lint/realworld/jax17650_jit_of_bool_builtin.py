# source: https://github.com/jax-ml/jax/pull/17650 (the "After" example in the description)
# observed on jax 0.10.2 CPU: ValueError "The truth value of an array with more than one
#   element is ambiguous" at the call: jit traces bool's argument, and bool() of the traced
#   five-element array is asked for. Added: the import of jax.numpy as jnp.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

jax.jit(bool)(jnp.arange(5))  # expect: JIT401
