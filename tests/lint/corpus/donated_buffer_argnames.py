import jax
import jax.numpy as jnp


def _step(state, batch):
    return state + batch.mean()


step = jax.jit(_step, donate_argnames=("state",))


def run(state, batches):
    for b in batches:
        state = step(state, b)
    return state


def run_bad(state, batch):
    out = step(state, batch)
    print(state.sum())  # expect: JIT504
    return out
