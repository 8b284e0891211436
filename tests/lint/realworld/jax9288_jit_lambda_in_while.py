# source: https://github.com/jax-ml/jax/issues/9288
# observed on jax 0.10.2 CPU: jax.jit of a top-level function inside the loop is cached
#   (traced once); jax.jit of a fresh lambda is traced again on every iteration.
# gap: per-call-recompile
import jax


def unjitted_loop_body(prev_i):
  print("i am being jitted")  # tolerate: JIT203
  return prev_i + 1

def g_inner_jitted_poorly(x, n):
  i = 0
  while i < n:
    # Don't do this!
    i = jax.jit(unjitted_loop_body)(i)
  return x + i

def g_inner_jitted_lambda(x, n):
  i = 0
  while i < n:
    # Don't do this!
    i = jax.jit(lambda x: unjitted_loop_body(x))(i)  # expect: JIT301
  return x + i


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        g_inner_jitted_poorly(10, 3)
    assert out.getvalue().count("i am being jitted") == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        g_inner_jitted_lambda(10, 3)
    # observed: line 23 traces the lambda again on each of the 3 iterations
    assert out.getvalue().count("i am being jitted") == 3, out.getvalue()
