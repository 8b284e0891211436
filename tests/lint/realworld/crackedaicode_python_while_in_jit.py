# source: https://crackedaicode.com/problems/jax-while-loop-vs-python-while (the worked
#   mini-example's `bad`)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `while x > 1.0`: under jit x is
#   a tracer. Added: the call `bad(4.0)`, the input of the page's `good(4.0)`.
# gap: other
import jax.numpy as jnp
from jax import lax, jit

@jit
def bad(x):
    while x > 1.0:   # ConcretizationTypeError  # expect: JIT102
        x = x * 0.5
    return x

bad(4.0)
