import jax
import jax.numpy as jnp

trace_log = []


@jax.jit
def layer(x, w):
    h = x @ w
    trace_log.extend([h.mean(), h.std()])  # expect: JIT202
    return jax.nn.relu(h)
