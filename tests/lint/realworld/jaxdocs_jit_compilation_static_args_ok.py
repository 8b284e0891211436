# source: https://github.com/jax-ml/jax/blob/00e1f454e3d1aa8633a6800e0a0ffeb680ca6048/docs/jit-compilation.md
#   ("Why can't we just JIT everything?" and "Marking arguments as static": the cells that
#   work: a jitted loop body called from a Python while loop, and f and g jitted with their
#   conditioned argument static)
# observed on jax 0.10.2 CPU: runs clean. `loop_body` is one jitted function compiled once;
#   with static_argnums=0 and static_argnames=['n'] the `if x > 0` and `while i < n` see
#   Python ints. The __main__ block is added and checks the values.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.numpy as jnp

# Condition on value of x.

def f(x):
  if x > 0:
    return x
  else:
    return 2 * x


# While loop conditioned on x and n.

def g(x, n):
  i = 0
  while i < n:
    i += 1
  return x + i


# While loop conditioned on x and n with a jitted body.

@jax.jit
def loop_body(prev_i):
  return prev_i + 1

def g_inner_jitted(x, n):
  i = 0
  while i < n:
    i = loop_body(i)
  return x + i

g_inner_jitted(10, 20)


f_jit_correct = jax.jit(f, static_argnums=0)
print(f_jit_correct(10))

g_jit_correct = jax.jit(g, static_argnames=['n'])
print(g_jit_correct(10, 20))


@partial(jax.jit, static_argnames=['n'])
def g_jit_decorated(x, n):
  i = 0
  while i < n:
    i += 1
  return x + i

print(g_jit_decorated(10, 20))


if __name__ == "__main__":
    assert int(g_inner_jitted(10, 20)) == 30
    assert int(f_jit_correct(10)) == 10 and int(f_jit_correct(-3)) == -6
    assert int(g_jit_correct(10, 20)) == 30
    assert int(g_jit_decorated(10, 20)) == 30
