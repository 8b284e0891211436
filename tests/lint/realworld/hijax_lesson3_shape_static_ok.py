# source: https://github.com/matomatical/hijax/blob/faf3fe5d5ac47d09970789ef0c439272ccf8f3a3/jit_dojo/lesson3.py
#   (a course's "jit dojo", lesson 3: shapes and dtypes are static under jit)
# observed on jax 0.10.2 CPU: runs clean; `n, = a.shape` is a Python int at trace time, so
#   jnp.zeros((n, n)) and jnp.arange(n) have static sizes. The print calls run once per
#   trace, as the lesson means them to ("[f.trace]"); the call with float input retraces.
#   Added: the __main__ block, which counts the traces.
# gap: omnistaging
import jax
import jax.numpy as jnp
from jaxtyping import Num, Array

print("== LESSON 3: SHAPE/DTYPES ARE STATICALLY AVAILABLE =====")

print("1. defining and transforming function...")
@jax.jit
def f(a: Num[Array, "n"]) -> Num[Array, "n n"]:
    print("   [f.trace] a:", a)  # tolerate: JIT203
    print("   [f.trace] a.shape:", a.shape)  # tolerate: JIT203
    print("   [f.trace] a.dtype:", a.dtype)  # tolerate: JIT203
    n, = a.shape
    A = jnp.zeros((n, n), dtype=a.dtype)
    A = A.at[jnp.arange(n), jnp.arange(n)].set(a)
    print("   [f.trace] ->", A)  # tolerate: JIT203
    jax.debug.print("   [f.debug] -> [{} ... {}]", A[0], A[-1])
    return A
print("   f:", f)

print("2. calling function (tracing and executing)...")
result = f(jnp.array([1,2,3,4]))
print("   result:", *str(result).splitlines(), sep="\n    ")

print("3. calling function again with a different dtype...")
result = f(jnp.array([1.,2.,3.,4.]))
print("   result:", *str(result).splitlines(), sep="\n    ")

if __name__ == "__main__":
    import contextlib, io
    assert result.shape == (4, 4) and result[2, 2] == 3.0
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        again = f(jnp.array([5., 6., 7., 8.]))
    assert "[f.trace]" not in buf.getvalue()
    assert again[3, 3] == 8.0
