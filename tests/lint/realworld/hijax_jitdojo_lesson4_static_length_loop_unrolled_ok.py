# source: https://github.com/matomatical/hijax/blob/faf3fe5d5ac47d09970789ef0c439272ccf8f3a3/jit_dojo/lesson4.py
#   (hijax "jit dojo", lesson 4: loops are unrolled at trace time)
# observed on jax 0.10.2 CPU: runs correctly. The loop bound n comes from a.shape, a static
#   Python int, so range(n) unrolls four iterations while tracing; the `[f.trace]` prints run
#   at trace time only, as the lesson means (the second call with the same shape prints
#   nothing and is not retraced); out.at[i].set(...) is assigned back, and the results are a * i.
# gap: omnistaging
# Kept as written. Added: a __main__ block that checks the results and the single trace.
import jax
import jax.numpy as jnp
from jaxtyping import Int, Array

print("== LESSON 4: LOOPS ARE UNROLLED AT TRACE TIME ==========")

print("1. defining function...")
@jax.jit
def f(a: Int[Array, "n"]) -> Int[Array, "n"]:
    print("   [f.trace] a:", a)  # tolerate: JIT203
    n, = a.shape
    out = jnp.zeros_like(a)
    for i in range(n):
        print(f"   [f.trace] loop iteration i={i}")  # tolerate: JIT203
        out = out.at[i].set(a[i] * i)
        
    print("   [f.trace] ->", out)  # tolerate: JIT203
    return out
print("   f:", f)

print("2. calling function (tracing and executing)...")
result = f(jnp.array([1, 2, 3, 4]))
print("   result:", result)

print("3. calling function again (only executing)...")
result = f(jnp.array([5, 5, 5, 5]))
print("   result:", result)

if __name__ == "__main__":
    assert f(jnp.array([1, 2, 3, 4])).tolist() == [0, 2, 6, 12]
    assert f(jnp.array([5, 5, 5, 5])).tolist() == [0, 5, 10, 15]
    assert f._cache_size() == 1, f._cache_size()
