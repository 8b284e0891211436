# source: https://crackedaicode.com/problems/jax-compilation-cache-key
#   (the page's GOOD/BAD snippet and its "Worked mini-example", as posted)
# observed on jax 0.10.2 CPU: every call of hot_call wraps a fresh lambda in jax.jit, so each
#   call misses the cache and traces and compiles again (two calls: two compilations of the
#   lambda), while _stable_sum_sq and sum_sq compile once. Added: the imports of the first
#   snippet and the __main__ block's compile count.
# gap: per-call-recompile
import jax
import jax.numpy as jnp

# GOOD — stable cache key
@jax.jit
def _stable_sum_sq(x):
    return jnp.sum(x ** 2)

# BAD — new jit object every call → always recompiles
def hot_call(x):
    f = jax.jit(lambda y: jnp.sum(y ** 2))  # expect: JIT301
    return f(x)

import jax, jax.numpy as jnp

@jax.jit
def sum_sq(x):
    return jnp.sum(x ** 2)

x = jnp.array([1.0, 2.0, 3.0])
print(sum_sq(x))  # 14.0 — compiled once
print(sum_sq(x))  # 14.0 — cache hit, no recompile

if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    # observed: line 18 jits a new lambda on every call of hot_call: each call compiles again
    for _ in range(2):
        assert float(hot_call(x)) == 14.0
        assert float(_stable_sum_sq(x)) == 14.0
    assert compiles.count("jit(<lambda>)") == 2, compiles
    assert compiles.count("jit(_stable_sum_sq)") == 1, compiles
