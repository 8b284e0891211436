# source: https://github.com/jax-ml/jax/issues/16559
# observed on jax 0.10.2 CPU: `jax.jit(get)(collection, idx)` with a tuple of arrays raises
#   TracerIntegerConversionError at `collection[idx]`: a Python tuple cannot be indexed by
#   the traced `idx` (the same function works when `collection` is one array). The print
#   is the reporter's look at what the traced arguments are. Added: the imports.
# gap: types
import jax
import jax.numpy as jnp


def get(collection, idx):
    print(collection, idx)  # tolerate: JIT203
    return collection[idx]  # expect: JIT401

idx = jnp.asarray(1)

collection = (jnp.asarray((0, 1)), jnp.asarray((0, 1)))
jax.jit(get)(collection, idx)
