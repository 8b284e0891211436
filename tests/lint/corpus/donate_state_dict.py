import jax
import jax.numpy as jnp


def _step(state, x):
    return {"w": state["w"] - 0.1 * x, "n": state["n"] + 1}


step = jax.jit(_step, donate_argnums=(0,))


def loop(state, xs):
    for x in xs:
        new_state = step(state, x)
        print(state["n"])  # expect: JIT504
        state = new_state
    return state


def loop_ok(state, xs):
    for x in xs:
        state = step(state, x)
        print(state["n"])
    return state
