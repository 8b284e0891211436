# source: https://theneuralbase.com/jax/learn/beginner/tracer-errors-dynamic-control-flow/
#   (good_control_flow, the page's fix with lax.cond)
# observed on jax 0.10.2 CPU: runs clean under jit. Added: the call under jax.jit and its
#   input.
# gap: other
import jax
import jax.numpy as jnp
from jax import lax

def good_control_flow(arr):
    return lax.cond(
        arr[0] > 5,
        lambda x: x * 2,
        lambda x: x + 1,
        arr
    )

if __name__ == "__main__":
    out = jax.jit(good_control_flow)(jnp.arange(10.0))
    assert out[1] == 2.0
    out = jax.jit(good_control_flow)(jnp.arange(10.0) + 6)
    assert out[0] == 12.0
