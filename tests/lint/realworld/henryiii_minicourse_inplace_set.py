# source: https://raw.githubusercontent.com/henryiii/python-performance-minicourse/master/06b_jax.ipynb
#   (the "Jax is functional" cells: the in-place set and the `.at[...].set` fix)
# observed on jax 0.10.2 CPU: TypeError "JAX arrays are immutable and do not support
#   in-place item assignment" at `jarr[...] = 1` (the notebook shows this failure on
#   purpose; the next cell's `.at[...].set(1)` is the fix). Added: the notebook's imports.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np

jarr = jnp.zeros((3, 3))
jarr[np.diag(np.ones(3, dtype=bool))] = 1  # expect: JIT501
jarr

j1 = jnp.zeros((3, 3))
j2 = j1.at[np.diag(np.ones(3, dtype=bool))].set(1)
j2
