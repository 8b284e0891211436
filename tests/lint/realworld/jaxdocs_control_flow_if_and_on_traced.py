# source: https://github.com/jax-ml/jax/blob/2676b7421c914bc41d7e250559b654a32480859c/docs/control-flow.md
#   ("Control flow and logical operators with JIT": the two cells tagged raises-exception)
# observed on jax 0.10.2 CPU: f(2) raises TracerBoolConversionError at `if x < 3:` and g(2)
#   raises TracerBoolConversionError at `return (x > 0) and (x < 3)`: under jit `x` is an
#   abstract tracer, and both the `if` and the short-circuiting `and` call bool() on it. The
#   two failing calls are moved into __main__, each error caught and its line checked.
# gap: omnistaging
import traceback

from jax import grad, jit
import jax
import jax.numpy as jnp


@jit
def f(x):
  if x < 3:  # expect: JIT101
    return 3. * x ** 2
  else:
    return -4 * x


@jit
def g(x):
  return (x > 0) and (x < 3)  # expect: JIT103


def _error_line(fn, *args):
    try:
        fn(*args)
    except jax.errors.TracerBoolConversionError as e:
        return [fr.lineno for fr in traceback.extract_tb(e.__traceback__)
                if fr.filename == __file__][-1]
    return None


if __name__ == "__main__":
    # This will fail!
    # observed: line 17 raises TracerBoolConversionError (`if` on a traced comparison)
    assert _error_line(f, 2) == 17
    # This will fail!
    # observed: line 25 raises TracerBoolConversionError (`and` of traced comparisons)
    assert _error_line(g, 2) == 25
