# source: https://github.com/matomatical/hijax/blob/178e9d3810f15798622fcb0352e8b228f75d9bcd/jit_dojo/lesson6.py
#   (course code: "Hi, JAX!" by Matthew Farrugia-Roberts, the "jit dojo", lesson 6,
#   "only some types can be static/dynamic")
# observed on jax 0.10.2 CPU: step 4 passes jnp.array(1) for the static parameter `n`;
#   jit hashes static arguments and raises ValueError "Non-hashable static arguments are
#   not supported" at the call, which the lesson's try/except catches and prints. Step 5
#   passes builtin functions, (sum,), for the traced parameter `a`, which jit refuses with
#   TypeError (not a valid JAX type), also caught. The two `[f.trace]` prints run at trace
#   time, as their text says: they print once per compilation (steps 2 and 3, n=10 and
#   n=11). Added: the __main__ block, which calls step 4 again and checks the error.
# gap: static-hashability
import functools
import textwrap
import jax
import jax.numpy as jnp
from jaxtyping import Int, Array

print("== LESSON 6: ONLY SOME TYPES CAN BE STATIC/DYNAMIC =====")

print("1. defining and transforming function...")
@functools.partial(jax.jit, static_argnames=["n"])
def f(
    n: int,
    a: Int[Array, "m"],
) -> Int[Array, "m"]:
    print("   [f.trace] n:", n)  # tolerate: JIT203
    print("   [f.trace] a:", a)  # tolerate: JIT203
    jax.debug.print("   [f.debug] n: {}", n)
    jax.debug.print("   [f.debug] a: {}", a)
    return n + a
print("   f:", f)

print("2. calling function (tracing and executing)...")
result = f(
    n=10,
    a=jnp.arange(5),
)
print("   result:", result)

print("3. calling function again (tracing and executing)...")
result = f(
    n=11,
    a=jnp.arange(5),
)
print("   result:", result)

print("4. only hashable types can be passed as static params")
try:
    f(  # expect: JIT302
        n=jnp.array(1),  # tolerate: JIT302
        a=jnp.arange(5),
    )
except Exception as e:
    print("  > "+"\n  > ".join(textwrap.wrap(str(e))))

print("5. only array(tree) types can be passed as dynamic params")
try:
    f(
        n=(min, max),
        a=(sum,),
    )
except Exception as e:
    print("  > "+"\n  > ".join(textwrap.wrap(str(e))))


if __name__ == "__main__":
    import traceback

    # observed: line 49 passes an array for the static parameter n; jit cannot hash it
    try:
        f(  # tolerate: JIT302
            n=jnp.array(1),
            a=jnp.arange(5),
        )
    except ValueError as e:
        assert "Non-hashable static arguments" in str(e), e
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 71, frames
    else:
        raise AssertionError("no error")
