# source: https://crackedaicode.com/problems/jax-while-loop-vs-python-while (the worked
#   mini-example's `good`)
# observed on jax 0.10.2 CPU: runs clean under jit; good(4.0) returns 1.0 (4 -> 2 -> 1, and
#   1.0 > 1.0 is false), not the 0.5 the page's comment says.
# gap: other
import jax.numpy as jnp
from jax import lax, jit

@jit
def good(x):
    cond = lambda s: s > 1.0
    body = lambda s: s * 0.5
    return lax.while_loop(cond, body, x)

good(4.0)   # → 0.5

if __name__ == "__main__":
    assert float(good(4.0)) == 1.0
