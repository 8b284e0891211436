# source: https://github.com/jax-ml/jax/issues/691 (the reporter's two timing scripts in the
#   description: random.normal called directly, then wrapped in a function)
# observed on jax 0.10.2 CPU: runs clean. random.normal is jitted inside JAX with `shape`
#   static; the tuple `(1,)` hashes by value, so the second call with an equal new tuple
#   hits the cache: no compilation after the first call, directly or through f (on jax
#   0.1.25 every direct call recompiled, the regression of the thread). The two draws from
#   `random.PRNGKey(0)` are equal on purpose: the script times one call twice.
# gap: static-hashability
import time
from jax import random

t = time.time()
random.normal(random.PRNGKey(0), shape=(1,))
print(time.time() - t)
t = time.time()
random.normal(random.PRNGKey(0), shape=(1,))
print(time.time() - t)

def f():
    return random.normal(random.PRNGKey(0), shape=(1,))

t = time.time()
f()
print(time.time() - t)
t = time.time()
f()
print(time.time() - t)


if __name__ == "__main__":
    import jax

    compiles = []

    def _count(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(_count)
    a = random.normal(random.PRNGKey(0), shape=(1,))
    b = f()
    assert compiles == [], compiles
    assert a.shape == (1,) and a.tolist() == b.tolist()
