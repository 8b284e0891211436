# source: https://github.com/PhillipLo/jax-tutorial/blob/c660f1ed85f66b395e704d121a213e7f7fa861b1/tutorial.ipynb
#   (a user's JAX tutorial notebook, section "JIT pitfalls", cells 44 and 46: the fix; the
#   imports are cells 3 and 40)
# observed on jax 0.10.2 CPU: runs clean: with `a` static, `np.ones(shape = (a,))` gets a
#   Python int and makes a NumPy constant; `b * ...` is a tracer, and `np.sum` of it
#   dispatches to the tracer's own `.sum()`, so `stupid_mult_jitted(3, 4)` gives 12.0 and
#   `(3, 5)` gives 15.0 from the same compilation.
# gap: exemption-vs-JAX
import numpy as np
from jax import jit

def stupid_mult(a, b): # multiply two integers a and b in a very dumb way
  bs = b * np.ones(shape = (a,)) # the shape of bs depends on a!
  ab = np.sum(bs)

  return ab

stupid_mult_jitted = jit(stupid_mult, static_argnums = 0)
stupid_mult_jitted(3, 4)


if __name__ == "__main__":
    assert stupid_mult_jitted(3, 4) == 12.0
    assert stupid_mult_jitted(3, 5) == 15.0
