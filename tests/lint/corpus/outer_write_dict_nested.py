import jax
import jax.numpy as jnp

_cache = {"hits": 0}


def make_step(state):
    @jax.jit
    def step(x):
        state["last"] = x  # expect: JIT202
        return x + 1

    return step


@jax.jit
def pure_step(x):
    local = {"x": x}
    local["y"] = x * 2
    return local
