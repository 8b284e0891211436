# source: https://github.com/jax-ml/jax/issues/1038
# observed on jax 0.10.2 CPU: in 2019 random.normal with a list shape recompiled on every
#   call (its jitted helper took the shape as a static argument, and a list, unhashable,
#   was keyed by identity: "random.normal is slow when shape is a list instead of a
#   tuple"). Today random.normal canonicalizes the shape to a tuple before its jitted
#   helper: calls with the list, the same or a fresh one, compile once. The code is
#   mattjj's reply (`shape = [batch_size, D]`, then `%timeit normal(key, shape)`);
#   added: imports, the key and sizes, and a loop of calls standing in for %timeit (with
#   fresh keys, where %timeit reuses one), and a compile counter.
# gap: exemption-vs-JAX
import jax
from jax.random import normal

key = jax.random.PRNGKey(0)
batch_size, D = 128, 32

shape = [batch_size, D]
normal(key,  shape)

if __name__ == "__main__":
    keys = [tuple(row) for row in jax.random.split(jax.random.PRNGKey(1), (3, 2))]
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for k1, k2 in keys:
        out = normal(k1,  shape)
        out = normal(k2, [batch_size, D])
    assert out.shape == (batch_size, D)
    assert compiles == [], compiles
