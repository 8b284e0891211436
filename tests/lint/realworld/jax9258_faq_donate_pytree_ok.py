# source: https://github.com/jax-ml/jax/pull/9258 (the FAQ section "Buffer donation" this pull
#   request added: its pytree example; `import jax`, `import numpy as np` and the typing
#   names added; the snippet's missing `)` after the first `jax.device_put(...)` added)
# observed on jax 0.10.2 CPU: runs clean: the list `xs` is donated as a whole and never read
#   again; `z` holds the two results, of shapes (2, 3) and (3, 4).
# gap: exemption-vs-JAX
from typing import List

import jax
import numpy as np
from jax import Array


def add_ones(xs: List[Array]):
  return [x + 1 for x in xs]

xs = [jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((3, 4)))]
# Execute `add_ones` with donation of all the buffers for `xs`.
# The outputs have the same shape and type as the elements of `xs`,
# so they will share those buffers.
z = jax.jit(add_ones, donate_argnums=0)(xs)

if __name__ == "__main__":
    assert [a.shape for a in z] == [(2, 3), (3, 4)]
    assert all(float(a.sum()) == 2.0 * a.size for a in z)
