# source: https://github.com/jax-ml/jax/blob/0d00aa39e33e873af4e85f0e0e73dc32468c4dde/docs/buffer_donation.md
#   (the doc's first example, `add` donating y, and its pytree example, `add_ones` donating a
#   list; `import jax`, `import numpy as np` and `from typing import List` added, `Array`
#   spelled `jax.Array`, the second result named z2 so that both are kept)
# observed on jax 0.10.2 CPU: runs clean: each donated input is never read again, only the
#   outputs z are used. Added: the `__main__` block that checks the outputs.
# gap: other
from typing import List

import jax
import numpy as np


def add(x, y):
  return x + y

x = jax.device_put(np.ones((2, 3)))
y = jax.device_put(np.ones((2, 3)))
# Execute `add` with donation of the buffer for `y`. The result has
# the same shape and type as `y`, so it will share its buffer.
z = jax.jit(add, donate_argnums=(1,))(x, y)


def add_ones(xs: List[jax.Array]):
  return [x + 1 for x in xs]

xs = [jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((3, 4)))]
# Execute `add_ones` with donation of all the buffers for `xs`.
# The outputs have the same shape and type as the elements of `xs`,
# so they will share those buffers.
z2 = jax.jit(add_ones, donate_argnums=0)(xs)


if __name__ == "__main__":
  assert np.array_equal(np.asarray(z), np.full((2, 3), 2.0))
  assert [a.shape for a in z2] == [(2, 3), (3, 4)]
  assert all(np.all(np.asarray(a) == 2.0) for a in z2)
