# source: https://openillumi.com/en/en-jax-jit-cache-size-recompile-debug
#   (a Stack Overflow question retold: how to detect that a @jit function is recompiled;
#   the user's stop-gap counter in a global, and the answer's `_cache_size()`)
# observed on jax 0.10.2 CPU: the counter increases once per trace, never on a cached
#   call: after func on float32[3], float32[3] again and float32[4] it is 2, and
#   func._cache_size() is 2 as well. The global write is the user's deliberate
#   trace-time counter (the question asks for exactly that count), so it is tolerated.
#   The page quotes the function only; added: the imports and the __main__ block with
#   its calls.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

recompilation_count: int = 0
@jax.jit
def func(z):
    global recompilation_count
    recompilation_count += 1  # tolerate: JIT202
    return z * z + 100 / z

if __name__ == "__main__":
    func(jnp.ones(3))
    func(jnp.ones(3) * 2)
    assert recompilation_count == 1
    func(jnp.ones(4))
    assert recompilation_count == 2
    assert func._cache_size() == 2
