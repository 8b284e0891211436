# source: https://github.com/Confirm-Solutions/confirmasaurus/blob/950d94467791a42481bb4f296748ac302c8a2b72/docs/jax_patterns.md
#   (the "Confusing static behavior for members of classes" demonstration in a team's JAX
#   development notes, which also recommend putting `self` in static_argnums)
# observed on jax 0.10.2 CPU: with `self` static, the object's hash is its id, so after
#   `W.x = 9` the call hits the cache and returns the 10 read at trace time: the notes'
#   output is "10 10", and jax 0.10.2 prints the same. Added: the __main__ block.
# gap: stale-state-attributes
import jax
from functools import partial

class wow:
    def __init__(self, x):
        self.x = x

    @partial(jax.jit, static_argnums=(0,))
    def f(self):
        return self.x  # expect: JIT201
W = wow(10)
print(W.f())
W.x = 9
print(W.f())

if __name__ == "__main__":
    # observed: line 17 reads self.x once, at trace time: after V.x = 9 the call still gives 10
    V = wow(10)
    first = int(V.f())
    V.x = 9
    second = int(V.f())
    assert (first, second) == (10, 10), (first, second)
