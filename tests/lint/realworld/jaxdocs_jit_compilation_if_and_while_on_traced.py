# source: https://github.com/jax-ml/jax/blob/00e1f454e3d1aa8633a6800e0a0ffeb680ca6048/docs/jit-compilation.md
#   ("Why can't we just JIT everything?": the two cells tagged raises-exception)
# observed on jax 0.10.2 CPU: `jax.jit(f)(10)` raises TracerBoolConversionError at
#   `if x > 0:` and `jax.jit(g)(10, 20)` raises TracerBoolConversionError at `while i < n:`:
#   jit traces `x` and `n`, so neither condition has a Python truth value. The two failing
#   calls are moved into __main__, each error caught and its line checked.
# gap: omnistaging
import traceback

import jax
import jax.numpy as jnp

# Condition on value of x.

def f(x):
  if x > 0:  # expect: JIT101
    return x
  else:
    return 2 * x


# While loop conditioned on x and n.

def g(x, n):
  i = 0
  while i < n:  # expect: JIT102
    i += 1
  return x + i


def _error_line(fn, *args):
    try:
        fn(*args)
    except jax.errors.TracerBoolConversionError as e:
        return [fr.lineno for fr in traceback.extract_tb(e.__traceback__)
                if fr.filename == __file__][-1]
    return None


if __name__ == "__main__":
    # observed: line 16 raises TracerBoolConversionError
    assert _error_line(jax.jit(f), 10) == 16  # Raises an error
    # observed: line 26 raises TracerBoolConversionError
    assert _error_line(jax.jit(g), 10, 20) == 26  # Raises an error
