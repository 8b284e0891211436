# source: https://github.com/jax-ml/jax/issues/367
# observed on jax 0.10.2 CPU: runs clean. The report's `np` is `jax.numpy` (the README's
#   `import jax.numpy as np` of the time, added here); `np.int32(x)` of a traced array failed
#   when the issue was filed and now casts under jit (`jnp.int32(tracer)` was made to work in
#   jax#3235). The call is the reporter's; `import jax` added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as np


def foo(x):
  bar = np.int32(x)
  return x
jax.jit(foo)(np.array([1.0, 2.0], dtype=np.float32))


if __name__ == "__main__":
    def cast(x):
        return np.int32(x)

    out = jax.jit(foo)(np.array([1.0, 2.0], dtype=np.float32))
    assert out.tolist() == [1.0, 2.0]
    assert jax.jit(cast)(np.array([1.5, 2.5])).dtype == np.int32
