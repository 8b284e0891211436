# source: https://github.com/jax-ml/jax/pull/4412 (the session in the description)
# observed on jax 0.10.2 CPU: ConcretizationTypeError for the axis argument of jnp.sum: jit
#   traces every positional argument, so the axis 0 is a tracer.
# gap: other
import jax.numpy as jnp
from jax import jit
jit(jnp.sum)(jnp.arange(4), 0)  # expect: JIT404
