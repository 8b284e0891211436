# source: https://crackedaicode.com/problems/jax-while-loop-newton
#   (the problem page's worked mini-example: `double_until_big` with lax.while_loop)
# observed on jax 0.10.2 CPU: runs clean under jit: the loop condition `s < 100.0` is a
#   traced comparison handed to lax.while_loop, which runs the body a data-dependent
#   number of times; double_until_big(1.0) == 128.0 as the page says. Added: the __main__
#   block, which calls it under jit with several starting values.
# gap: exemption-vs-JAX
from jax import lax
import jax.numpy as jnp

def double_until_big(x):
    cond = lambda s: s < 100.0
    body = lambda s: s * 2.0
    return lax.while_loop(cond, body, x)

double_until_big(1.0)   # → 128.0


if __name__ == "__main__":
    import jax

    jitted = jax.jit(double_until_big)
    assert float(jitted(1.0)) == 128.0
    assert float(jitted(3.0)) == 192.0
    assert float(jitted(150.0)) == 150.0
    assert jitted._cache_size() == 1
