# source: https://github.com/jax-ml/jax/issues/16994
# observed on jax 0.10.2 CPU: foo runs; foo_jit raises in jnp.tile: `b` is a traced array
#   under jit, so the repetition counts are not static. The shape prints are the user's
#   trace-time diagnostics and are tolerated.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np

def foo(a, b):
    print(f"a.shape {a.shape}")
    print(f"b.shape {b.shape}")
    return jnp.tile(a, b)

@jax.jit
def foo_jit(a, b):
    print(f"a.shape {a.shape}")  # tolerate: JIT203
    print(f"b.shape {b.shape}")  # tolerate: JIT203
    return jnp.tile(a, b)  # expect: JIT404

a = np.ndarray([1, 20, 20])
b = np.array([64, 1, 1])
c = foo(a, b)
print(c.shape)

c_jit = foo_jit(a, b)
print(c_jit.shape)
