# source: https://github.com/jax-ml/jax/blob/1082251cde876f91608b403d1995b5e0025f0398/docs/tracing.md
#   (the fix that follows the failing example: `neg` marked static)
# observed on jax 0.10.2 CPU: runs clean: f(1, True) returns -1 and f(1, False) returns 1,
#   the second call compiling again for the new static value as the document says. Added:
#   `from jax import jit` and the __main__ block, which checks the two values.
# gap: other
from functools import partial

from jax import jit


@jit(static_argnums=(1,))
def f(x, neg):
  return -x if neg else x

f(1, True)

f(1, False)


if __name__ == "__main__":
    assert int(f(1, True)) == -1
    assert int(f(1, False)) == 1
