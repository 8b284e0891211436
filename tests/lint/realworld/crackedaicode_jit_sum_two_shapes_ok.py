# source: https://crackedaicode.com/problems/jax-retrace-on-shape-change
#   (a JAX exercise page, "jit Retrace on Shape Change": its worked mini-example)
# observed on jax 0.10.2 CPU: result is 16.0, as the page says; f = jax.jit(jnp.sum) is
#   made once and compiled twice, once per input shape (f._cache_size() is 2), and a
#   third call on a shape already seen compiles nothing more. jnp.sum's own `axis` and
#   other parameters keep their defaults, so nothing but the array is traced. Added: the
#   __main__ block.
# gap: per-call-recompile
import jax
import jax.numpy as jnp

f = jax.jit(jnp.sum)

a = jnp.array([1.0, 2.0, 3.0])    # shape [3]
b = jnp.array([4.0, 3.0, 2.0, 1.0])  # shape [4]

result = f(a) + f(b)   # f compiled twice (different shapes)
# result == 6.0 + 10.0 == 16.0

if __name__ == "__main__":
    assert float(result) == 16.0
    assert f._cache_size() == 2
    f(a * 2)
    assert f._cache_size() == 2
