# source: https://github.com/hsf-india-may2023/JAX_in_HEP/blob/45515a6ad9de294af1b88a71cbff9871eaba7199/Lecture_3_JAX_Control_Flow.ipynb
#   (the lecture's fixes: `fn_JCF` with lax.fori_loop over len(tuple_arr), and `f` with
#   jax.lax.cond)
# observed on jax 0.10.2 CPU: runs clean under jit: len(tuple_arr) is the static length of
#   the traced array, the fori_loop body is traced once whatever the length, and lax.cond
#   takes the traced predicate; fn_JCF(jnp.ones(2)) == -2.0 and f(2) == 12.0 as the notebook
#   shows. Added: the __main__ block, which checks the values and the jaxpr size.
# gap: exemption-vs-JAX
import jax.numpy as jnp
from jax import jit, make_jaxpr

# Substitute the regular Python for loop with a lax.fori_loop

from jax.lax import fori_loop

@jit
def fn_JCF(tuple_arr):
    
    def body_fun(n, carry):
        
        carry += tuple_arr[n]**2 - tuple_arr[n] ** 3 - tuple_arr[n]
        
        return carry
    
    sum_array = fori_loop(0, len(tuple_arr), body_fun, 0.0)
    
    return sum_array


# Let's try to use JAX control flow on this function
import jax

@jit
def f(x):
    return jax.lax.cond(x < 3.0, lambda y: 3.0 * y ** 2, lambda y: -4.0 * y, x)


if __name__ == "__main__":
    assert float(fn_JCF(jnp.ones(2))) == -2.0
    assert float(fn_JCF(jnp.ones(1000))) == -1000.0
    small = make_jaxpr(fn_JCF)(jnp.ones(5))
    large = make_jaxpr(fn_JCF)(jnp.ones(5000))
    assert len(str(large)) < 2 * len(str(small))
    # This will NOT fail!
    assert float(f(2)) == 12.0
    assert float(f(5.0)) == -20.0
