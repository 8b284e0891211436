# source: https://blackjax-devs.github.io/blackjax/examples/speed_up_guide.html (section 1,
#   "Always JIT the step function at the outermost scope"; docs/examples/speed_up_guide.md)
# observed on jax 0.10.2 CPU: both loops hand the same `key` to the step at every iteration,
#   the jitted one too, so every step draws the same momentum (equal random draws).
# gap: other
# added: imports, `key` and `state` inputs, and a stand-in for `nuts` (blackjax.nuts(...)), whose
#   `.step(key, state)` draws a momentum from the key as NUTS does; blackjax is not installed.
import types

import jax
import jax.numpy as jnp


def _nuts_step(key, state):  # stand-in for blackjax.nuts(logdensity_fn, ...).step
    momentum = jax.random.normal(key, state.shape)
    return state + 0.1 * momentum, momentum


nuts = types.SimpleNamespace(step=_nuts_step)
key = jax.random.key(0)
state = jnp.zeros(2)

# ✗ slow — recompiles on every call
for i in range(1000):
    state, info = nuts.step(key, state)  # expect: JIT502

# ✓ fast — compile once, run many
step = jax.jit(nuts.step)
for i in range(1000):
    state, info = step(key, state)  # expect: JIT502

if __name__ == "__main__":
    s = jnp.zeros(2)
    draws = []
    for i in range(3):
        s, info = nuts.step(key, s)  # tolerate: JIT502
        draws.append(info)
    # observed: line 25 draws the same momentum at every iteration of the loop
    assert all(bool((draws[0] == d).all()) for d in draws)
    jitted_draws = []
    for i in range(3):
        s, info = step(key, s)  # tolerate: JIT502
        jitted_draws.append(info)
    # observed: line 30 draws that same momentum again, at every iteration, from the same key
    assert all(bool((draws[0] == d).all()) for d in jitted_draws)
