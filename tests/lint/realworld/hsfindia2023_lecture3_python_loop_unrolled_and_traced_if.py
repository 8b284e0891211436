# source: https://github.com/hsf-india-may2023/JAX_in_HEP/blob/45515a6ad9de294af1b88a71cbff9871eaba7199/Lecture_3_JAX_Control_Flow.ipynb
#   (a HEP school's JAX lecture on control flow: the jitted `fn` with a Python loop over its
#   array argument, and the jitted `f` with a Python `if`; both shown on purpose)
# observed on jax 0.10.2 CPU: `for entry in tuple_arr` iterates a traced float32[1000] under
#   jit, so the loop is unrolled into the program, one slice and four arithmetic operations
#   per element (the jaxpr has more than 5000 equations; the notebook reports 5.98 s to
#   compile it, against 76 ms for its fori_loop version). `if x < 3` in f raises
#   TracerBoolConversionError: x is a tracer. Changed: the notebook's `%%timeit` cells are
#   plain calls, its make_jaxpr/print cells are kept; added: the __main__ block.
# gap: other
import jax.numpy as jnp
from jax import make_jaxpr

# Let's start with a simpler function and introduce a loop - not taking advantage of array-based computation

from jax import jit

@jit
def fn(tuple_arr):
    
    summed_array = 0
    for entry in tuple_arr:  # expect: JIT303
        
        summed_array += entry**2 - entry ** 3 - entry
    
    return summed_array

# Look at how the loops are taken into account in the computation chart
print(make_jaxpr(fn)(jnp.ones(2)))       # For an array with size 2, we get two sets of repeated computations 
                                         # one per each iteration

# Let's time the initial compilation step of the JIT-compiled function with Python for loop

print(fn(jnp.ones(1000)))


# Let's see this for a simple example

@jit
def f(x):
    if x < 3:                        # Forcing the traced input to take on a value  # expect: JIT101
        return 3. * x ** 2
    else:
        return -4 * x


if __name__ == "__main__":
    import traceback

    import jax

    jaxpr = make_jaxpr(fn)(jnp.ones(1000))
    inner = jaxpr.eqns[0].params["jaxpr"].jaxpr
    # observed: line 22 unrolls the loop over the 1000 elements into the compiled program
    assert len(inner.eqns) > 5 * 1000, len(inner.eqns)

    # This will fail!
    # observed: line 41 raises TracerBoolConversionError under jit
    try:
        f(2)
    except jax.errors.TracerBoolConversionError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 41, frames
    else:
        raise AssertionError("no error")
