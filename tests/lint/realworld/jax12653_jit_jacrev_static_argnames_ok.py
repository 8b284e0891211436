# source: https://github.com/jax-ml/jax/pull/12653 (the example in the description, found by a
#   user in https://stackoverflow.com/questions/73941657)
# observed on jax 0.10.2 CPU: runs clean. jax.jacrev now propagates the signature of `f`, so
#   jit's static_argnames=['b'] finds `b` and the Python `if` on it sees a concrete False:
#   both the jitted grad and the jitted jacrev return 0.0 for b=False and 1.0 for b=True (the
#   ConcretizationTypeError of the report was fixed by this pull request). Added: the
#   asserts of the __main__ block.
# gap: exemption-vs-JAX
import jax

def f(a, b):
  return a if b else 0.0

jax.jit(jax.grad(f), static_argnames=['b'])(1.0, False)
# 0.0

jax.jit(jax.jacrev(f), static_argnames=['b'])(1.0, False)
# ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected...

if __name__ == "__main__":
    for transform in (jax.grad, jax.jacrev):
        g = jax.jit(transform(f), static_argnames=['b'])
        assert float(g(1.0, False)) == 0.0
        assert float(g(1.0, b=True)) == 1.0
