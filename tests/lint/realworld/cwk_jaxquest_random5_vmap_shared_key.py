# source: https://www.creativeworksofknowledge.com/cwk-quests/jax-quest/random/5/
# observed on jax 0.10.2 CPU: silent; all 32 rows of y get the identical noise pattern
# observed: line 19 the one unbatched key is broadcast to every vmapped example, so each of the 32 rows draws the same numbers
# gap: other
# (added: imports and the __main__ check; the page's section "흔한 함정" (common pitfall), its comments kept)
import jax
import jax.numpy as jnp
from jax import random


def add_noise(x, key):
    return x + random.normal(key, x.shape) * 0.1


x_batch = jnp.zeros((32, 10))  # 32 examples
key = random.PRNGKey(0)
# 잘못 — 모든 example 이 같은 noise
batched = jax.vmap(add_noise, in_axes=(0, None))
y = batched(x_batch, key)  # expect: JIT502
# 32 examples 다 똑같은 noise pattern. bug!


if __name__ == "__main__":
    assert bool(jnp.all(y == y[0])), "rows differ"
    assert float(jnp.std(y[0])) > 0.0
    print("all 32 rows share one noise draw:", y[0][:3])
