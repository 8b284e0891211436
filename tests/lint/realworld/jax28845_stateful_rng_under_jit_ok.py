# source: https://github.com/jax-ml/jax/pull/28845 (the JEP's example session)
# observed on jax 0.10.2 CPU: runs clean. `stateful_rng` keeps its key in a mutable array
#   ref, so `rng.key()`, `rng.uniform()` and the jitted `f(rng)` draw fresh numbers on every
#   call, under jit too: the second `f(rng)` differs from the first. The IPython prompts are
#   dropped; the checks in `__main__` are added.
# gap: other
from jax.experimental.random import stateful_rng

rng = stateful_rng(123456)

# Calling rng.key() repeatedly will generate new keys each time, implicitly updating
# the internal state:
rng.key()

rng.key()

# The rng object provides methods to generate values based on these implicitly-updated
# keys, inspired by the api of np.random.default_rng()
rng.uniform()

rng.uniform()

rng.integers(0, 10, size=5)

rng.integers(0, 10, size=5)

# Even when used under JIT, the implicit update propagates through due to being
# backed by the mutable ArrayRef object.
import jax

@jax.jit
def f(rng):
  return rng.integers(0, 10, size=5)

f(rng)

f(rng)


if __name__ == "__main__":
    import jax.numpy as jnp

    draws = [f(rng) for _ in range(4)]
    assert len({tuple(d.tolist()) for d in draws}) == 4, draws
    assert not jnp.array_equal(rng.uniform(), rng.uniform())
