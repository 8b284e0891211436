# source: https://github.com/jax-ml/jax/issues/12773 (the maintainer's model of the issue;
#   the three calls in __main__ are added, the thread's text stops at `foo([0.])`)
# observed on jax 0.10.2 CPU: every call returns 1.0: the write to the closed-over list runs
#   once, while tracing, and leaves a tracer in tot[0].
# gap: stale-state-attributes
import jax

def foo(tot):
  @jax.jit
  def increment(x):
    tot[0] += x  # expect: JIT202
    return tot[0]
  return increment

incrementer = foo([0.])

if __name__ == "__main__":
    tot = [0.]
    incrementer = foo(tot)
    outs = [float(incrementer(1.)) for _ in range(3)]
    # observed: line 11 runs once: the counter never goes past 1.0, and a tracer is left behind
    assert outs == [1.0, 1.0, 1.0], outs
    assert isinstance(tot[0], jax.core.Tracer)
