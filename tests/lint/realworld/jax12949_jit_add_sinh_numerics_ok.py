# source: https://github.com/jax-ml/jax/issues/12949
# observed on jax 0.10.2 CPU: runs clean; it still prints 2475248.5 and 2475246.0, which
#   agree to float32 roundoff (relative 1e-6): the maintainers' answer, "JIT changes the
#   exact numerics of outputs" (the FAQ), not a tracing bug. Added: the tolerance check.
# gap: exemption-vs-JAX
import jax

def fn(arg_0):
    arg_0 = jax.numpy.add(arg_0, jax.numpy.array(16, dtype=jax.numpy.float32))
    fn_res = jax.lax.sinh(arg_0)
    return fn_res

arg_0 = jax.numpy.array(-6.9080677, dtype=jax.numpy.float32)
arg_0 = jax.numpy.sin(arg_0)

print(fn(arg_0))
print(jax.jit(fn)(arg_0))

if __name__ == "__main__":
    import numpy as np
    np.testing.assert_allclose(fn(arg_0), jax.jit(fn)(arg_0), rtol=1e-5)
