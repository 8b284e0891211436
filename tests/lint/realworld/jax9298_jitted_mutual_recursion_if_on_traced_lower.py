# source: https://github.com/jax-ml/jax/issues/9298 (soraros' comment of 2022-01-27, the case
#   "If `f` and `g` are `@jit`-ed and `h` is not, we see the familiar ConcretizationTypeError")
# observed on jax 0.10.2 CPU: h() raises TracerBoolConversionError at `if lower < 1` in f
#   (line 18): under jit `lower` is a tracer. g's own test (line 26) fails the same way when g
#   is called: g is jitted too, so its `lower` is traced whoever calls it.
#   The comment shows the two `@jit` lines commented out; this file takes the case it
#   describes, with them in place. `jax.errors` is imported to catch the error.
# gap: other
import traceback

import jax.errors
from functools import partial
from jax import jit

@jit
# @partial(jit, inline=True)
def f(init, lower):
  if lower < 1:  # expect: JIT101
    return 0.
  else:
    return g(init, lower - 1)

@jit
# @partial(jit, inline=True)
def g(init, lower):
  if lower < 1:  # expect: JIT101
    return 0.
  else:
    return f(init, lower - 1)

# @jit
def h():
  return f(0., 2)


def _raising_line(call):
    try:
        call()
    except jax.errors.TracerBoolConversionError as err:
        frames = [fr for fr in traceback.extract_tb(err.__traceback__) if fr.filename == __file__]
        return frames[-1].lineno
    raise AssertionError("no TracerBoolConversionError")


if __name__ == "__main__":
    # observed: line 18 raises TracerBoolConversionError when h() calls the jitted f
    assert _raising_line(h) == 18
    # observed: line 26 raises the same when the jitted g is called
    assert _raising_line(lambda: g(0., 2)) == 26
