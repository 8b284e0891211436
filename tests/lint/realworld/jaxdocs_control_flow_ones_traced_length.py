# source: https://github.com/jax-ml/jax/blob/2676b7421c914bc41d7e250559b654a32480859c/docs/control-flow.md
#   ("functions with argument-value dependent shapes", and the print gotcha that follows it)
# observed on jax 0.10.2 CPU: `bad_example_jit(10, 4)` raises TypeError ("Shapes must be 1D
#   sequences of concrete values of integer type") at `jnp.ones((length,))`: jit traces
#   `length`, so the shape is a tracer. The jitted `f` with two prints prints tracers, and
#   only while tracing: a second call prints nothing. The failing call is moved into
#   __main__ and its error caught; the prints are captured with redirect_stdout.
# gap: omnistaging
import contextlib
import io
import traceback

from jax import jit
import jax.numpy as jnp


def example_fun(length, val):
  return jnp.ones((length,)) * val  # expect: JIT404
# un-jit'd works fine
print(example_fun(5, 4))

bad_example_jit = jit(example_fun)


@jit
def f(x):
  print(x)  # expect: JIT203
  y = 2 * x
  print(y)  # expect: JIT203
  return y


if __name__ == "__main__":
    # this will fail:
    try:
        bad_example_jit(10, 4)
    except TypeError as e:
        line = [fr.lineno for fr in traceback.extract_tb(e.__traceback__)
                if fr.filename == __file__][-1]
    else:
        line = None
    # observed: line 18 raises TypeError, the shape (length,) holds a tracer
    assert line == 18, line

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        f(2)
        f(3)
    text = out.getvalue()
    # observed: line 27 and line 29 print tracers, once, at the first call's trace
    assert text.count("Tracer") == 2 and "4" not in text and "6" not in text, text
