# source: https://github.com/MonitSharma/parallel_adventures/blob/704cb8ec04dfccbb94afe51b98100ed91d5a88ac/Research/JAX/tutorial_n.ipynb
#   (cell 22 of a user's JAX study notebook, the user's own variant of the sharp-bits example,
#   with the user's comment on the second call)
# observed on jax 0.10.2 CPU: the second call returns 5.0, not 6.0 as the user expected:
#   jit(impure_fn_with_global) is the same function, its cache entry for float32[] was
#   traced with g = 0 and keeps it after `g = 1`; the third call (a new shape) traces again
#   and reads g = 1 ([7.]). The print is the user's trace-time message and runs twice, once
#   per trace. Added: the imports and the __main__ block.
# gap: stale-state-attributes
import jax.numpy as jnp
from jax import jit

g = 0 
def impure_fn_with_global(x):
    print("This only prints once — during tracing!")  # tolerate: JIT203
    return x + g  # expect: JIT201


print("First call with global:", jit(impure_fn_with_global)(4.0))
g = 1  # Change the global variable
print("Second call with changed global:", jit(impure_fn_with_global)(5.0)) # here technically I should see 6 as the result, but I see 5 instead

# now when we change the type of the input, it retraces
print("Third call with array input:", jit(impure_fn_with_global)(jnp.array([6.0])))
# This will print "This only prints once — during tracing!" again,
# because the input type has changed, so JAX needs to trace the function again.""

if __name__ == "__main__":
    # observed: line 16 reads g when the function is traced: 5.0 + 0, not 5.0 + 1
    assert float(jit(impure_fn_with_global)(5.0)) == 5.0
    assert float(impure_fn_with_global(5.0)) == 6.0
