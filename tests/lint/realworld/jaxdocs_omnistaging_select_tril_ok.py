# source: https://github.com/jax-ml/jax/blob/d69d27a82c1e5a7f3cd4905e02eec8e0ae01c568/docs/design_notes/omnistaging.md
#   ("Slightly less toy example")
# observed on jax 0.10.2 CPU: runs clean. The mask built from `jnp.arange` of static sizes
#   is a tracer under jit, but it only feeds `lax.select`, which needs no concrete value;
#   the result keeps the strictly lower triangle of x.
#   Added: `from jax import jit`, `import numpy as np` (the note uses both without
#   importing them) and the assertion on the result.
# gap: omnistaging
import numpy as np
from jax import jit

import jax.numpy as jnp
from jax import lax

@jit
def select_tril(x):
  mask = jnp.arange(x.shape[0])[:, None] > jnp.arange(x.shape[1])
  return lax.select(mask, x, jnp.zeros_like(x))  # lax.select is like jnp.where

x = np.arange(12).reshape((3, 4))
out = select_tril(x)
assert np.array_equal(np.asarray(out), np.tril(x, -1))
