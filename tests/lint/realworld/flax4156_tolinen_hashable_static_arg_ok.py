# source: https://github.com/google/flax/issues/4156
# observed on jax 0.10.2 CPU: with flax 0.12.8, `hash(model)` of the reporter's
#   `nnx.bridge.ToLinen(nnx.Linear, args=(32, 64))` works (when reported, in August 2024, it
#   raised "Failed to hash Flax Module ... unhashable type: 'dict'"), so the wrapper can be a
#   static argument of
#   `jax.jit` like any Linen module: the `__main__` block (added, with the imports and inputs)
#   initialises it and applies it through a jitted function that holds it static, twice, and
#   the second call with an equal, newly built wrapper compiles nothing new.
# gap: static-hashability
import functools

import jax
import jax.numpy as jnp
from flax import linen as nn, nnx

model = nnx.bridge.ToLinen(nnx.Linear, args=(32, 64))

hash(model)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    x = jnp.ones((2, 32))
    variables = model.init(jax.random.key(0), x)

    @functools.partial(jax.jit, static_argnums=0)
    def apply(module, variables, x):
        return module.apply(variables, x)

    y = apply(model, variables, x)
    before = len(compiles)
    y2 = apply(nnx.bridge.ToLinen(nnx.Linear, args=(32, 64)), variables, x)
    after = len(compiles)
    assert after == before, compiles
    assert y.shape == (2, 64) and bool(jnp.array_equal(y, y2))
