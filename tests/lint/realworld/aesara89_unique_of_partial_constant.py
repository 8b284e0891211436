# source: https://github.com/aesara-devs/aesara/issues/89 (the MWE in the maintainer's comment)
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jnp.unique ("The size argument of
#   jnp.unique must be statically specified"): x is the NumPy array bound by partial, a
#   constant, yet under jit jnp.unique's result size is not known while tracing.
# gap: omnistaging
import numpy as np
import jax

from functools import partial


a = np.arange(6).reshape((3, 2))

def unique(x):
    return jax.numpy.unique(x)  # expect: JIT403


jax.jit(partial(unique, a))()
