# source: https://github.com/matomatical/hijax/blob/faf3fe5d5ac47d09970789ef0c439272ccf8f3a3/jit_dojo/lesson7.py
#   (a JAX course's "jit dojo", lesson 7: the teacher's demonstration, ending "# expect error")
# observed on jax 0.10.2 CPU: the calls without jit run both branches; `jax.jit(f)` raises
#   TracerBoolConversionError at `if n > 0 and pos0:`: `n > 0` is a Python bool, so `and`
#   hands `pos0 = a[0] > 0`, a tracer, to `if`. The `[f.trace]` prints are the lesson's
#   deliberate trace-time messages. Nothing added.
# gap: other
import jax
import jax.numpy as jnp
from jaxtyping import Int, Array

print("== LESSON 7: CAN'T BRANCH ON DYNAMIC VALUES ============")

print("1. defining function...")
def f(a: Int[Array, "n"]) -> Int[Array, "n"]:
    print("   [f.trace] a:", a)  # tolerate: JIT203
    n, = a.shape
    pos0 = a[0] > 0
    print(f"   [f.trace] pos0={pos0}")  # tolerate: JIT203
    jax.debug.print("   [f.debug] pos0={}", pos0)
    if n > 0 and pos0:  # expect: JIT101
        print("   [f.trace] ->", a)  # tolerate: JIT203
        return a
    else:
        print("   [f.trace] ->", -a)  # tolerate: JIT203
        return -a
print("   f:", f)

print("2. calling function without jit...")
result = f(jnp.array([1, 2, 3, 4]))
print("   result:", result)
result = f(jnp.array([-1, -2, -3, 4]))
print("   result:", result)

print("3. transforming and calling function again...")
f_jit = jax.jit(f)
result = f_jit(jnp.array([5, 5, 5, 5]))
print("   result:", result)
# expect error
