# source: https://github.com/matomatical/hijax/blob/66ec8c7c044d593f58ffb1e46b8f052a23f1c008/jit_dojo/lesson7.py
#   (the "jit dojo" of the "Hi, JAX!" course by Matthew Farrugia-Roberts, lesson 7 "can't
#   branch on dynamic values", as written; the lesson ends with `# expect error`)
# observed on jax 0.10.2 CPU: the plain calls run; f_jit(jnp.array([5, 5, 5, 5])) raises
#   TracerBoolConversionError in the `if`: `n > 0` is a Python bool from the static shape,
#   but `and pos0` then converts the traced comparison a[0] > 0 to bool.
# gap: exemption-vs-JAX
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
    if n > 0 and pos0:  # expect: JIT101  # tolerate: JIT103
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
