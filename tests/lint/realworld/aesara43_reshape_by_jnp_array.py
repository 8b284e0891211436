# source: https://github.com/aesara-devs/aesara/issues/43 (the maintainer's MWE)
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jnp.reshape: under jit the tuple z
#   is a pytree of tracers and jnp.array(z) is a traced array, not a shape.
#   `np.int` no longer exists; the builtin `int` is what it aliased.
# gap: omnistaging
import jax
import numpy as np

import jax.numpy as jnp


x = np.zeros((2 * 3))
z = (2, 3)

expected_res = np.reshape(x, np.array(z, dtype=int))


def b(z):
    return jnp.array(z, dtype=int)

def a(x, z):
    return jnp.reshape(x, b(z))  # expect: JIT404


jax_res = jax.jit(a)(x, z)
