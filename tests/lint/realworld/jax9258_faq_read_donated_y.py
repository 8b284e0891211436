# source: https://github.com/jax-ml/jax/pull/9258 (the FAQ section "Buffer donation" this pull
#   request added: its `add`, `x` and `y`, then the example it gives of reusing a donated
#   buffer; `import jax` and `import numpy as np` added)
# observed on jax 0.10.2 CPU: RuntimeError: Array has been deleted, at `w = y + 1`: `y` was
#   donated to the jitted `add` and its buffer now holds `z` (donation works on CPU now).
# gap: other
import jax
import numpy as np


def add(x, y):
  return x + y

x = jax.device_put(np.ones((2, 3)))
y = jax.device_put(np.ones((2, 3)))

# Donate the buffer for `y`
z = jax.jit(add, donate_argnums=(1,))(x, y)
w = y + 1  # Reuses `y` whose buffer was donated above  # expect: JIT504
