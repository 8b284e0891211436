# source: https://blackjax-devs.github.io/blackjax/examples/speed_up_guide.html (section 0,
#   "Use the standard inference loop", the manual loop; docs/examples/speed_up_guide.md)
# observed on jax 0.10.2 CPU: `run` is jitted with no static argument, so `n_steps` (1_000) is a
#   tracer and jax.random.split(rng_key, n_steps) raises TypeError (the split shape
#   (JitTracer(~int32[]),) is not hashable) at line 27.
# gap: omnistaging
# added: imports, `rng_key` and `initial_state` inputs, and a stand-in for `kernel` (a blackjax
#   step function, `kernel(key, state) -> (state, info)`); blackjax is not installed.
import jax
import jax.numpy as jnp


def kernel(key, state):  # stand-in for a blackjax kernel's step
    momentum = jax.random.normal(key, state.shape)
    return state + 0.1 * momentum, momentum


rng_key = jax.random.key(0)
initial_state = jnp.zeros(2)

@jax.jit
def run(rng_key, initial_state, n_steps):
    def step(state, key):
        state, info = kernel(key, state)
        return state, info

    return jax.lax.scan(step, initial_state, jax.random.split(rng_key, n_steps))  # expect: JIT404

final_state, (states, infos) = run(rng_key, initial_state, 1_000)
