# source: https://github.com/matomatical/hijax/blob/faf3fe5d5ac47d09970789ef0c439272ccf8f3a3/jit_dojo/lesson2.py
#   (hijax "jit dojo", lesson 2: distinguishing tracing vs. execution)
# observed on jax 0.10.2 CPU: runs correctly. f is jitted once; the `[f.trace]` prints run at
#   trace time only (on the first call and again on the call with a new shape, never on the
#   second call with the same types), which is what the lesson sets out to show, while the
#   jax.debug.print lines run on every call; the results are a + b.
# gap: exemption-vs-JAX
# Kept as written. Added: a __main__ block that counts the traces and checks the results.
import jax
import jax.numpy as jnp
from jaxtyping import Int, Array

print("== LESSON 2: DISTINGUISHING TRACING VS. EXECUTION ======")

print("1. defining and transforming function...")
@jax.jit
def f(
    a: Int[Array, "n"],
    b: Int[Array, "n"],
) -> Int[Array, "n"]:
    print("   [f.trace] a:", a)  # tolerate: JIT203
    jax.debug.print("   [f.debug] a: {}", a)
    print("   [f.trace] b:", b)  # tolerate: JIT203
    jax.debug.print("   [f.debug] b: {}", b)
    c = a + b
    print("   [f.trace] ->", c)  # tolerate: JIT203
    jax.debug.print("   [f.debug] -> {}", c)
    return c
print("   f:", f)

print("2. calling function (tracing and executing)...")
result = f(jnp.arange(8), jnp.ones(8, dtype=int))
print("   result:", result)

print("3. calling function with same types (only executing)...")
result = f(jnp.arange(8), jnp.ones(8, dtype=int))
print("   result:", result)

print("4. calling function with different types (tracing and executing)...")
result = f(jnp.arange(4), jnp.ones(4, dtype=int))
print("   result:", result)

if __name__ == "__main__":
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        r1 = f(jnp.arange(8), jnp.ones(8, dtype=int))
        r2 = f(jnp.arange(8), jnp.ones(8, dtype=int))
        jax.effects_barrier()
    # the shapes were already traced above: no new trace-time print, one per-call debug print each
    assert "[f.trace]" not in buf.getvalue(), buf.getvalue()
    assert (r1 == jnp.arange(8) + 1).all() and (r2 == r1).all()
    assert f._cache_size() == 2, f._cache_size()
