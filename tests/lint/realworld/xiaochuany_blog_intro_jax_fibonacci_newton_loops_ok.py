# source: https://github.com/xiaochuany/blog/blob/3a08c210dbaf211a7cdad7091adbf97e5786be6b/docs/posts/2025-01-08-jax.md (blog post "Intro to JAX", sections "`vmap`" and "`jit` if you can": the two fixes of the fibonacci loop and the lax.while_loop Newton square root)
# observed on jax 0.10.2 CPU: runs clean. xfibonacci with static_argnums=1 unrolls its loop
#   over a concrete n (one compile per n), xfibonnacci (the post's spelling) runs fori_loop
#   with a traced n, and newton_sqrt runs lax.while_loop with a traced tol; the vmapped
#   linear predictor prints the post's [4.414307 4.70928].
# gap: exemption-vs-JAX
# (added: `from jax.lax import fori_loop`, which the post uses without importing it, and the
#   __main__ block; the post's plain-Python xfibonacci and newton, which it never jits, and
#   its other sections left out)
import jax
import jax.numpy as jnp
import jax.random as jr

def li(beta, x):
    """linear predictor with multiple regressors"""
    return beta.dot(x)

beta = jnp.arange(5)

jax.vmap(li, in_axes=(None,0))(
    beta, 
    jr.normal(jr.key(1), (2,5))
)
# [4.414307 4.70928 ]


from jax import jit
from functools import partial

@partial(jit,static_argnums=1)
def xfibonacci(x, n):
    
    a, b = 0, 1
    for _ in range(1, n):
        a, b = b, a + b
        
    return x*b


from jax.lax import fori_loop

@jax.jit
def xfibonnacci(x, n):

    def body_fun(i,val):
        a,b = val
        return b, a+b

    _, out  = fori_loop(1, n, body_fun, (0,1)) 
    
    return x*out


import jax
import jax.numpy as jnp
from jax.lax import while_loop

@jax.jit
def newton_sqrt(N, tol=1e-6):

    def cond_fun(val):
        x, e = val
        return e > tol

    def body_fun(val):
        x, _ = val
        x_next = 0.5 * (x + N / x)
        e = abs(x - x_next)
        return x_next, e
    
    init = N / 2.0, tol + 1.0 # Ensure the loop runs at least once

    final_estimate, _ = while_loop(cond_fun, body_fun, init)
    return final_estimate


if __name__ == "__main__":
    out = jax.vmap(li, in_axes=(None, 0))(beta, jr.normal(jr.key(1), (2, 5)))
    assert jnp.allclose(out, jnp.array([4.414307, 4.70928]), atol=1e-5), out
    # fib(10) = 55, with the post's indexing (b after n-1 steps)
    assert int(xfibonacci(2, 10)) == 110
    assert int(xfibonnacci(2, 10)) == 110
    assert int(xfibonnacci(2, 7)) == int(xfibonacci(2, 7)) == 26
    assert xfibonnacci._cache_size() == 1  # n is traced: one compile for every n
    assert abs(float(newton_sqrt(2.0)) - 2 ** 0.5) < 1e-5
    assert abs(float(newton_sqrt(9.0, 1e-3)) - 3.0) < 1e-3
