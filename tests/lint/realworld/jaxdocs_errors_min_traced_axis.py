# source: https://jax.readthedocs.io/en/latest/errors.html (ConcretizationTypeError, "Traced
#   value where static value is expected", the failing example; an older rendering of the
#   page)
# observed on jax 0.10.2 CPU: ConcretizationTypeError at `x.min(axis)`: jit traces the
#   Python int 0 given for axis, and jnp.min needs a static axis. `from jax import jit,
#   partial` no longer works: `partial` is functools.partial.
# gap: omnistaging
from functools import partial
from jax import jit
import jax.numpy as jnp

@jit
def func(x, axis):
  return x.min(axis)  # expect: JIT404

func(jnp.arange(4), 0)
