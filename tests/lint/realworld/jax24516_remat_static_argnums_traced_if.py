# source: https://github.com/jax-ml/jax/pull/24516 (the example in the description)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if x > 0:`: jax.remat with
#   static_argnums=(1,) keeps only the second argument static; `x` is still traced by
#   checkpoint, so the Python `if` on it fails. Added: `import jax.numpy as jnp`, which the
#   example uses in the else branch without importing.
# gap: other
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.remat, static_argnums=(1,))
def f(x, _):
  if x > 0:  # expect: JIT101
    return x
  else:
    return jnp.sin(x)

f(3., 1.)
