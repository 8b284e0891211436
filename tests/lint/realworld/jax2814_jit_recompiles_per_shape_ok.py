# source: https://github.com/jax-ml/jax/issues/2814 (the snippet in the 2024 comment on
#   JAX_LOG_COMPILES)
# observed on jax 0.10.2 CPU: runs clean: f is jitted once at module level; calls with a
#   new input shape compile again (as the comment shows with jax.log_compiles) and calls
#   with a seen shape hit the cache. Added: two calls standing in for the comment's calls,
#   which the stored thread cuts off (its print lines are left out), and the compile count
#   in __main__.
# gap: per-call-recompile
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
  return x * x

with jax.log_compiles(True):  # Enable logging

  f(jnp.ones(3))
  f(jnp.ones(4))

if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    a, b = jnp.ones(3), jnp.ones(4)
    before = len(compiles)
    for _ in range(3):
        f(a)
        f(b)
    assert len(compiles) == before, compiles
