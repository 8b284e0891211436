# source: https://github.com/scipy/scipy/issues/22781 (a commenter's two functions, the
#   2025-04-04 comment)
# observed on jax 0.10.2 CPU: fn() prints [0 0]; fn2() raises TracerBoolConversionError
#   at `while arr.any():` (the loop condition is a traced boolean). Added: the `#` before
#   the output noted after `print(fn())`.
# gap: omnistaging
import jax
import jax.numpy as jp


@jax.jit
def fn():
    arr = jp.ones([2], dtype=jp.bool)
    arr = jp.where(arr > 0, 0, 1)
    return arr


@jax.jit
def fn2():
    arr = jp.ones([2], dtype=jp.bool)
    i = 0
    while arr.any():  # expect: JIT102
        arr = arr.at[i].set(0)
        i += 1
    return arr


print(fn())  # [0 0]
print(fn2())  # jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].
