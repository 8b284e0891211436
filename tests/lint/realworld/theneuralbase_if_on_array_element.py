# source: https://theneuralbase.com/jax/learn/beginner/tracer-errors-dynamic-control-flow/
#   (bad_control_flow, the page's example of a tracer error)
# observed on jax 0.10.2 CPU: jax.jit(bad_control_flow) raises TracerBoolConversionError at
#   `if arr[0] > 5:`. Added: the call under jax.jit and its input.
# gap: other
import jax
import jax.numpy as jnp
from jax import lax

def bad_control_flow(arr):
    if arr[0] > 5:  # expect: JIT101
        return arr * 2
    else:
        return arr + 1

jax.jit(bad_control_flow)(jnp.arange(10.0))
