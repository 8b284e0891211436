# source: https://taourl.com/read-2425218.html
#   (a Q&A answer, "DIfference in variable values in jax non-jit runtime and jit transformed
#   runtime": its two examples as posted, up to where the page is cut off)
# observed on jax 0.10.2 CPU: jit_func prints "Non-JIT print: JitTracer(~int32[])" once, on
#   the first call, and nothing on the second, although the comment in the function says
#   it executes every call; jit_dynamic(3) raises TracerBoolConversionError at `if x > 0:`.
#   The page's `x 2` (an operator lost in its markup) is written `x ** 2`. Added: the
#   __main__ block (the page is cut off before it calls jit_dynamic).
# gap: other
import jax

import jax.numpy as jnp

def non_jit_func(x):

    print("Non-JIT print:", x) # Executes every call  # expect: JIT203

    return x ** 2

jit_func = jax.jit(non_jit_func)

# Non-JIT execution

print("Non-JIT output:", non_jit_func(5)) # Prints and computes

print("Non-JIT output:", non_jit_func(5)) # Prints again

# JIT execution

print("JIT output:", jit_func(5)) # Prints only once

print("JIT output:", jit_func(5)) # No print, cached result

def dynamic_control_flow(x):

    if x > 0:  # expect: JIT101

        return x ** 2

    else:

        return x + 2

jit_dynamic = jax.jit(dynamic_control_flow)

print("Non-JIT dynamic:", dynamic_control_flow(3)) # Works

print("Non-JIT dynamic:", dynamic_control_flow(-1)) # Works

if __name__ == "__main__":
    import contextlib
    import io
    import traceback

    # observed: line 16 prints at trace time only: a later call prints nothing
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        jit_func(7)
    assert buf.getvalue() == "", buf.getvalue()
    with contextlib.redirect_stdout(buf):
        non_jit_func(7)
    assert "Non-JIT print: 7" in buf.getvalue()

    # observed: line 36 raises TracerBoolConversionError under jit
    try:
        jit_dynamic(3)
    except jax.errors.TracerBoolConversionError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 36, frames
    else:
        raise AssertionError("no error")
