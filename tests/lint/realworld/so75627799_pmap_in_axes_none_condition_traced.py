# source: https://example-a.com/answer/75627799
#   (Stack Overflow question 75627799, "Nested vmap in pmap - JAX", and its accepted answer:
#   the answer's snippet, which reproduces the asker's error with `pmap(..., in_axes=(0, None))`)
# observed on jax 0.10.2 CPU (4 host devices forced through XLA_FLAGS): the vmap call returns
#   [0 1 2 3], since vmap passes an in_axes=None argument through untraced; the pmap call
#   raises TracerBoolConversionError at `x if condition else x + 1`, because pmap traces an
#   in_axes=None argument (unmapped, but still a tracer), as the asker's `timings` was.
#   Added: the XLA_FLAGS line (the snippet needs 4 devices) and prints of the two calls.
# gap: other
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

from jax import vmap, pmap
import jax.numpy as jnp

def f(x, condition):
  # requires untraced condition:
  return x if condition else x + 1  # expect: JIT101

x = jnp.arange(4)
print(vmap(f, in_axes=(0, None))(x, True))
# Array([0, 1, 2, 3], dtype=int32)

print(pmap(f, in_axes=(0, None))(x, True))
# ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected:
