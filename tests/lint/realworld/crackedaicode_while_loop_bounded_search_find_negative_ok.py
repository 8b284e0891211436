# source: https://crackedaicode.com/problems/jax-while-loop-bounded-search
#   (the problem page's worked mini-example: `find_negative`, a bounded lax.while_loop
#   whose condition combines two traced comparisons with `&`)
# observed on jax 0.10.2 CPU: runs clean under jit: `n = x.shape[0]` is a static length,
#   `(idx < n) & (x[idx] >= 0.0)` is a traced boolean built with the bitwise `&` (no
#   Python `and`), and the index read at idx == n is clamped, so an array with no negative
#   entry returns n. Returns 2 for the page's input. Added: the __main__ block.
# gap: exemption-vs-JAX
from jax import lax
import jax.numpy as jnp

def find_negative(x):
    n = x.shape[0]
    cond = lambda idx: (idx < n) & (x[idx] >= 0.0)
    body = lambda idx: idx + 1
    return lax.while_loop(cond, body, jnp.int32(0))

find_negative(jnp.array([1.0, 2.0, -3.0, 4.0]))
# → 2


if __name__ == "__main__":
    import jax

    jitted = jax.jit(find_negative)
    assert int(jitted(jnp.array([1.0, 2.0, -3.0, 4.0]))) == 2
    assert int(jitted(jnp.array([-1.0, 2.0, 3.0, 4.0]))) == 0
    assert int(jitted(jnp.array([1.0, 2.0, 3.0, 4.0]))) == 4
    assert jitted._cache_size() == 1
