# source: https://github.com/jax-ml/jax/issues/9672
# observed on jax 0.10.2 CPU: the method jitted once with a static self is traced once;
#   `jit(x.f)()` in the loop wraps a fresh bound method each time and traces on every
#   iteration. The prints are the reporter's trace-time markers (tolerated).
# gap: per-call-recompile
from jax import jit
from functools import partial

class X:
  @partial(jit, static_argnums=(0,))
  def f(self):
    print("Recompiling")  # tolerate: JIT203

x = X()
for i in range(3):
    x.f()

class X:
  def f(self):
    print("Recompiling")  # tolerate: JIT203

x = X()
for i in range(3):
    jit(x.f)()  # expect: JIT301


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i in range(3):
            jit(x.f)()  # tolerate: JIT301
    # observed: line 24 traces the bound method again on every iteration
    assert out.getvalue().count("Recompiling") == 3, out.getvalue()
