# source: https://taourl.com/read-2012066.html (a Q&A answer on ConcretizationTypeError
#   under jax.grad; `x 2` of the page is `x ** 2` with the markup restored)
# observed on jax 0.10.2 CPU: runs clean: under grad alone the `if` on x[0] works (the
#   page's claim that it raises does not hold), and the lax.cond rewrite works too.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import lax


def sum_of_squares(x):
    return jnp.sum(x ** 2)

grad_fn = jax.grad(sum_of_squares)
x = jnp.array([1.0, 2.0, 3.0])
print(grad_fn(x))  # Output: [2. 4. 6.]


def problematic_function(x):
    if x[0] > 0:
        return jnp.sum(x ** 2)
    else:
        return -jnp.sum(x ** 2)

grad_fn = jax.grad(problematic_function)
print(grad_fn(x))


def fixed_function(x):
    return lax.cond(x[0] > 0,
                    lambda _: jnp.sum(x ** 2),
                    lambda _: -jnp.sum(x ** 2),
                    operand=None)

grad_fn = jax.grad(fixed_function)
print(grad_fn(x))
