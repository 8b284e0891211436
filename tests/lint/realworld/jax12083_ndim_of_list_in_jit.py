# source: https://github.com/jax-ml/jax/issues/12083
# observed on jax 0.10.2 CPU: eager call works; under jit TracerArrayConversionError:
#   jnp.ones(1) is a tracer under jit and jnp.ndim of a list hands it to NumPy.
# gap: exemption-vs-JAX
import jax
from jax import numpy as jnp
from jax.scipy import linalg as jlinalg
import numpy

func = lambda x: x + jnp.ndim([jnp.ones(1)])  # expect: JIT402
func(0.)
jax.jit(func)(0.)
