# source: https://github.com/jax-ml/jax/pull/13022
# observed on jax 0.10.2 CPU: after vmap returns, a.dct['hi'][0]() gives a leaked
#   BatchTracer (with jax_check_tracer_leaks on, the call raises).
# gap: stale-state-attributes
import jax

class A:
  def __init__(self, dct):
    self.dct = dct

a = A({})

def sketch(x):
  a.dct['hi'] = [lambda: x]  # expect: JIT202
  return x

jax.vmap(sketch)(jax.numpy.arange(3))

if __name__ == "__main__":
    # observed: line 14 stores a closure over a tracer in an outer object
    assert isinstance(a.dct['hi'][0](), jax.core.Tracer)
