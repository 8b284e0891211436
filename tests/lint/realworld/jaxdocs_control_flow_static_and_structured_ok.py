# source: https://github.com/jax-ml/jax/blob/2676b7421c914bc41d7e250559b654a32480859c/docs/control-flow.md
#   (the cells that work: loops over static bounds, static_argnames, the structured control
#   flow primitives, jnp.logical_and, and grad through Python control flow)
# observed on jax 0.10.2 CPU: runs clean. `range(3)` and `range(x.shape[0])` are static;
#   `x` and `n` (and `length`) are made static with static_argnames, so the `if`, the
#   `range(n)` and the shape are Python values; lax.cond/while_loop/fori_loop and
#   jnp.logical_and trace; grad alone runs the Python `if` on concrete values. Redefinitions
#   of `f` are kept as in the document; the __main__ block is added and checks the values.
# gap: exemption-vs-JAX
from jax import grad, jit
import jax.numpy as jnp
from jax import lax


@jit
def f(x):
  for i in range(3):
    x = 2 * x
  return x

print(f(3))


@jit
def g(x):
  y = 0.
  for i in range(x.shape[0]):
    y = y + x[i]
  return y

print(g(jnp.array([1., 2., 3.])))


def f(x):
  if x < 3:
    return 3. * x ** 2
  else:
    return -4 * x

f = jit(f, static_argnames='x')

print(f(2.))


def f(x, n):
  y = 0.
  for i in range(n):
    y = y + x[i]
  return y

f = jit(f, static_argnames='n')

f(jnp.array([2., 3., 4.]), 2)


def example_fun(length, val):
  return jnp.ones((length,)) * val

# static_argnames tells JAX to recompile on changes at these argument positions:
good_example_jit = jit(example_fun, static_argnames='length')
# first compile
print(good_example_jit(10, 4))
# recompiles
print(good_example_jit(5, 4))


operand = jnp.array([0.])
lax.cond(True, lambda x: x+1, lambda x: x-1, operand)
# --> array([1.], dtype=float32)
lax.cond(False, lambda x: x+1, lambda x: x-1, operand)
# --> array([-1.], dtype=float32)

init_val = 0
cond_fun = lambda x: x < 10
body_fun = lambda x: x+1
lax.while_loop(cond_fun, body_fun, init_val)
# --> array(10, dtype=int32)

init_val = 0
start = 0
stop = 10
body_fun = lambda i,x: x+i
lax.fori_loop(start, stop, body_fun, init_val)
# --> array(45, dtype=int32)


@jit
def jax_check_positive_even(x):
  is_even = x % 2 == 0
  # `logical_and` does not short circuit, so `x > 0` is always evaluated.
  return jnp.logical_and(is_even, x > 0)

print(jax_check_positive_even(24))

x = jnp.array([-1, 2, 5])
print(jax_check_positive_even(x))


def f(x):
  if x < 3:
    return 3. * x ** 2
  else:
    return -4 * x

print(grad(f)(2.))  # ok!
print(grad(f)(4.))  # ok!


if __name__ == "__main__":
    assert float(g(jnp.array([1., 2., 3.]))) == 6.0
    assert good_example_jit(5, 4).shape == (5,)
    assert int(lax.fori_loop(0, 10, lambda i, x: x + i, 0)) == 45
    assert jax_check_positive_even(x).tolist() == [False, True, False]
    assert float(grad(f)(2.)) == 12.0 and float(grad(f)(4.)) == -4.0
