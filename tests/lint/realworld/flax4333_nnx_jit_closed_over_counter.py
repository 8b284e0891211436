# source: https://github.com/google/flax/pull/4333 (the Counter example it adds to
#   docs_nnx/guides/transforms.md, "Mutable Module cannot be passed by closure")
# observed on jax 0.10.2 CPU: flax raises TraceContextError ("Cannot mutate Param from a
#   different trace level") at the write in increment: f closes over `counter`, created
#   outside nnx.jit, and writes a tracer into it; the guide's try/except catches it and the
#   count stays 0. `self.count += ...` on a Variable is no longer supported and is spelled
#   `self.count[...] += ...`, as flax's error message says. Added: the imports.
# gap: stale-state-attributes
import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Module):
  def __init__(self):
    self.count = nnx.Param(jnp.array(0))

  def increment(self):
    self.count[...] += jnp.array(1)  # expect: JIT202

counter = Counter()

@nnx.jit
def f(x):
  counter.increment()
  return 2 * x

try:
  y = f(3)
except Exception as e:
  print(e)

if __name__ == "__main__":
    import traceback
    # observed: line 18 writes a tracer into the closed-over counter; flax refuses it
    try:
        f(3)
    except Exception as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 18, frames
    else:
        raise AssertionError("no error")
    assert int(counter.count[...]) == 0
