# source: https://github.com/jax-ml/jax/pull/5558 (the example it quotes from
#   https://github.com/jax-ml/jax/issues/5550)
# observed on jax 0.10.2 CPU: `nlm(img, search_window)` raises ConcretizationTypeError in
#   jnp.pad: jit traces the Python int search_window, and pad_width must be static. The
#   second jnp.pad repeats the bug and is never reached.
# gap: omnistaging
from jax import numpy as jnp
import jax

img = jnp.arange(25).reshape((5, 5))
search_window =  5

@jax.jit
def nlm(img, search_window):
  img_pad = jnp.pad(img, (search_window, search_window))  # expect: JIT404
  img_pad = jnp.pad(img, search_window)  # tolerate: JIT404


nlm(img, search_window)
