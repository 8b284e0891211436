# source: https://github.com/avilay/learn-ai-act-1/blob/0cc7bc7c0794b0328002af4607388358c1518992/learn-jax/jaxjit.ipynb
#   (a learner's notebook on jit: `sum_of_sqs` and `sum_of_sqs_2` jitted over a Python list,
#   a lax.fori_loop over an array, and the jitted `g` called from the plain Python `f` that
#   branches on n)
# observed on jax 0.10.2 CPU: runs clean, with the notebook's values (5., 5., 5., 30., 37.):
#   a list argument is a pytree of scalars, so iterating it under jit is a loop over its
#   (static) length; the fori_loop body indexes the closed-over array with the traced
#   index; f branches on a Python float outside any trace and only g is jitted.
#   Left out: the cells that pass an iterator on purpose to show the errors (the
#   TypeError of a list_iterator argument, the UnexpectedTracerError of next() in a
#   fori_loop body). Added: the __main__ block.
# gap: exemption-vs-JAX
import jax
import numpy as np
import jax.numpy as jnp
from jax import random, jit, lax, vmap, pmap, grad, value_and_grad

@jit
def sum_of_sqs(xs):
    return jnp.sum(jnp.array([x**2 for x in xs]))

sum_of_sqs([0., 1., 2.])

ary = jnp.array([0., 1., 2.])
lax.fori_loop(0, 3, lambda idx, acc: acc + ary[idx]**2, 0)

@jit
def sum_of_sqs_2(xs):
    # return jnp.sum(jnp.array([x**2 for x in xs]))
    answer = 0
    for x in xs:
        answer += x**2
    return answer

sum_of_sqs_2([0., 1., 2.])

sum_of_sqs_2([0., 1., 2., 3., 4.])

@jit
def g(x):
    return 3 * x**3 + 2 * x**2

# This is a pure Python function
def f(x, n):
    if n > 0:
        return g(x) + n
    else:
        return 2 * x - n

f(2., 5.)


if __name__ == "__main__":
    assert float(sum_of_sqs([0., 1., 2.])) == 5.0
    assert float(lax.fori_loop(0, 3, lambda idx, acc: acc + ary[idx]**2, 0.)) == 5.0
    assert float(sum_of_sqs_2([0., 1., 2.])) == 5.0
    assert float(sum_of_sqs_2([0., 1., 2., 3., 4.])) == 30.0
    assert float(f(2., 5.)) == 37.0
    assert float(f(2., -1.)) == 5.0
    assert float(f(3., 5.)) == 104.0
    assert g._cache_size() == 1
