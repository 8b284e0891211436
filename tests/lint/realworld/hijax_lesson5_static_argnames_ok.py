# source: https://github.com/matomatical/hijax/blob/faf3fe5d5ac47d09970789ef0c439272ccf8f3a3/jit_dojo/lesson5.py
#   (a course's "jit dojo", lesson 5: static parameters)
# observed on jax 0.10.2 CPU: runs clean; n is static (static_argnames), so jnp.arange(n)
#   has a Python length and each new n traces once ("[f.trace]" prints are meant to run
#   at trace time). Added: the __main__ block, which checks the result and the traces.
# gap: static-hashability
import jax
import jax.numpy as jnp
from jaxtyping import Int, Array

print("== LESSON 5: STATIC PARAMETERS =========================")

print("1. defining function...")
def f_nojit(n: int, ) -> Int[Array, "n n"]:
    print("   [f.trace] n:", n)  # tolerate: JIT203
    jax.debug.print("   [f.debug] n: {}", n)
    a = jnp.arange(n) + 1
    print("   [f.trace] a:", a)  # tolerate: JIT203
    jax.debug.print("   [f.debug] a: {}", a)
    b = jnp.diag(a)
    print("   [f.trace] ->", b)  # tolerate: JIT203
    jax.debug.print("   [f.debug] -> [{} ... {}]", b[0], b[-1])
    return b
print("   f_nojit:", f_nojit)

print("2. transforming function...")
f_jit = jax.jit(f_nojit, static_argnames=['n'])
# NOTE: without 'static_argnames' it raises an error
print("   f_jit:", f_jit)

print("3. calling function (tracing and executing)...")
result = f_jit(4)
print("   result:", *str(result).splitlines(), sep="\n  ")

print("4. calling function again (tracing and executing)...")
result = f_jit(3)
print("   result:", *str(result).splitlines(), sep="\n  ")

if __name__ == "__main__":
    import contextlib, io
    assert result.shape == (3, 3) and int(result[2, 2]) == 3
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        again = f_jit(4)
    assert "[f.trace]" not in buf.getvalue()
    assert int(again[3, 3]) == 4
