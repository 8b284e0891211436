# source: https://github.com/jax-ml/jax/issues/4729
# observed on jax 0.10.2 CPU: runs clean: `jit(relu_default)` applied once and the `@jit`
#   decorator give the same jitted function; each compiles once on its first call and
#   hits the cache afterwards (the reporter's timing gap was the first compilation of
#   `jnp.maximum` itself, paid by whichever ran first). The IPython `%time`/`%timeit`
#   lines are replaced by plain calls. Added: the __main__ compile count.
# gap: per-call-recompile
import jax.numpy as jnp
from jax import grad, jit

def relu_default(x):
  return jnp.maximum(0, x)

@jit
def relu_decorator(x):
  return jnp.maximum(0, x)


# jit the function without any decorator and trigger its first compilation.
relu_jit = jit(relu_default)
relu_jit(2.0).block_until_ready()       # around 11 ms

# do the same for the function with the @jit decorator.
relu_decorator(2.0).block_until_ready() # around 6 ms

# after the initial complilation, the speed discrepancy seems to vanish.
relu_jit(2.0).block_until_ready()         # 320 µs per loop
relu_decorator(2.0).block_until_ready()   # 319 µs per loop


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for _ in range(5):
        relu_jit(3.0).block_until_ready()
        relu_decorator(3.0).block_until_ready()
    assert compiles == [], compiles
    assert float(relu_jit(-1.0)) == 0.0 and float(relu_decorator(2.0)) == 2.0
