# source: https://github.com/jax-ml/jax/pull/5492
# observed on jax 0.10.2 CPU: the list keeps the tracer of the first trace; under
#   jax.checking_leaks() the call raises.
# gap: stale-state-attributes
import jax
from jax import jit

lst = []

@jit
def f(x):
  lst.append(x)  # expect: JIT202
  return x

f(3.)

if __name__ == "__main__":
    # observed: line 12 appends a tracer to module state
    assert isinstance(lst[0], jax.core.Tracer)
