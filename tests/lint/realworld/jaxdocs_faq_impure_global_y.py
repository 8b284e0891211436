# source: https://github.com/jax-ml/jax/blob/055a88344ffe252fd8d57d5470c3201493aeb5b8/docs/faq.rst
#   ("jit changes the behavior of my function")
# observed on jax 0.10.2 CPU: with `@jit` applied, the loop prints "Inside: 0" once and the
#   results 0, 1, 2, where the plain function prints "Inside:" three times and returns
#   0, 2, 4: the global `y` is read once, while tracing, and baked into the compiled code,
#   and the print runs only during that trace. The FAQ shows the decorator commented out
#   ("# @jit   # Different behavior with jit") and prints both outputs; here the decorator
#   is uncommented, the loop is moved under `if __name__ == "__main__":` and run once under
#   jit and once under `jax.disable_jit()` for the plain output, with stdout captured to
#   check the prints.
# gap: stale-state-attributes
import contextlib
import io

import jax
from jax import jit

y = 0

@jit   # Different behavior with jit
def impure_func(x):
  print("Inside:", y)  # expect: JIT203  # tolerate: JIT201
  return x + y  # expect: JIT201


if __name__ == "__main__":
  out = io.StringIO()
  results = []
  with contextlib.redirect_stdout(out):
    for y in range(3):
      results.append(int(impure_func(y)))
  # observed: line 22 prints once, on the trace, not on each call
  assert out.getvalue().count("Inside:") == 1, out.getvalue()
  # observed: line 23 keeps the y of the first trace, so the results are x + 0
  assert results == [0, 1, 2], results

  plain = io.StringIO()
  expected = []
  with jax.disable_jit(), contextlib.redirect_stdout(plain):
    for y in range(3):
      expected.append(int(impure_func(y)))
  assert plain.getvalue().count("Inside:") == 3
  assert expected == [0, 2, 4], expected
