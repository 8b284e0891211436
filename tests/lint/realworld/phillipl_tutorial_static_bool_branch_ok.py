# source: https://github.com/PhillipLo/jax-tutorial/blob/c660f1ed85f66b395e704d121a213e7f7fa861b1/tutorial.ipynb
#   (a user's JAX tutorial notebook, section "JIT pitfalls", cell 42: the fix of cell 40's
#   ConcretizationTypeError; the import is cell 40's)
# observed on jax 0.10.2 CPU: runs clean: with `add_one` declared static, `if add_one:` tests
#   a Python bool; `(1.0, True)` gives 2.0 and `(1.0, False)` compiles the other branch and
#   gives 3.0.
# gap: other
from jax import jit

def add_one_or_two(x, add_one): 
  if add_one: # control flow depends on the argument add_one
    return x + 1
  else:
    return x + 2

add_one_or_two_jitted = jit(add_one_or_two, static_argnums = 1)
add_one_or_two_jitted(1.0, True)


if __name__ == "__main__":
    assert add_one_or_two_jitted(1.0, True) == 2.0
    assert add_one_or_two_jitted(1.0, False) == 3.0
