# source: https://blackjax-devs.github.io/blackjax/examples/speed_up_guide.html (section 2,
#   "Use jax.lax.scan instead of Python loops", both versions; docs/examples/speed_up_guide.md)
# observed on jax 0.10.2 CPU: both functions are jitted with no static argument, so `n_steps`
#   is a tracer and jax.random.split(rng_key, n_steps) raises TypeError (a traced split shape is
#   not hashable) in each, at line 25 and line 35; neither version ever unrolls or scans.
# gap: omnistaging
# added: imports, the `__main__` block's inputs, and a stand-in for `kernel` (a blackjax step
#   function, `kernel(key, state) -> (state, info)`); blackjax is not installed.
import sys
import traceback

import jax
import jax.numpy as jnp


def kernel(key, state):  # stand-in for a blackjax kernel's step
    momentum = jax.random.normal(key, state.shape)
    return state + 0.1 * momentum, momentum


# ✗ Python loop inside jit — unrolls at trace time, O(n) compile cost
@jax.jit
def run_python_loop(rng_key, initial_state, n_steps):
    state = initial_state
    for key in jax.random.split(rng_key, n_steps):  # unrolled by JAX tracer  # expect: JIT404
        state, _ = kernel(key, state)
    return state

# ✓ lax.scan inside jit — O(1) compile cost, compact XLA WhileOp
@jax.jit
def run_scan(rng_key, initial_state, n_steps):
    def step(state, key):
        state, info = kernel(key, state)
        return state, info
    return jax.lax.scan(step, initial_state, jax.random.split(rng_key, n_steps))  # expect: JIT404


def _raising_line(fn, *args):
    try:
        fn(*args)
    except TypeError:
        frames = [f for f in traceback.extract_tb(sys.exc_info()[2]) if f.filename == __file__]
        return frames[-1].lineno
    return None


if __name__ == "__main__":
    # observed: line 25 raises TypeError: the split count n_steps is a tracer under jit
    assert _raising_line(run_python_loop, jax.random.key(0), jnp.zeros(2), 10) == 25
    # observed: line 35 raises the same TypeError in the scan version
    assert _raising_line(run_scan, jax.random.key(0), jnp.zeros(2), 10) == 35
