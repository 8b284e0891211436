# source: https://github.com/jax-ml/jax/issues/3412
# observed on jax 0.10.2 CPU: runs clean: `jnp.array(x, copy=True)` now makes a real copy,
#   so printing x_copy works after x is donated to `_test` (in the report, on TPU, the copy
#   shared the donated buffer and printing it raised RuntimeError). The asserts in __main__
#   are added.
# gap: exemption-vs-JAX
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, donate_argnums=(0,))
def _test(array: jnp.ndarray):
  return array.at[0].set(77)

x = jnp.asarray([0, 1])
x_copy = jnp.array(x, copy=True)
new_x = _test(x)

# Gives: RuntimeError: Invalid argument: CopyToHostAsync() called on invalid buffer.
print(x_copy)

if __name__ == "__main__":
    assert x_copy.tolist() == [0, 1]
    assert new_x.tolist() == [77, 1]
