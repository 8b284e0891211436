# source: https://github.com/google/jaxopt/issues/383 (the reporter's fix in the thread: "I
#   needed `Bisection(..., check_bracket=False)`")
# observed on jax 0.10.2 CPU (jaxopt 0.8.5): grad, jit and vmap of root all run clean and
#   find the root of 2x^3 - x - 2 (about 1.165); with check_bracket=False, Bisection's
#   init_state skips its Python `if sign == 0:` test on the traced values. (For factors 4
#   and 6 the root lies below lower=1, so bisection ends at the upper bound 2.0: the
#   bracket the check would have tested, not a tracing matter.) Added: the imports and
#   prints; the snippet with the keyword the thread settles on.
# gap: cross-module
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
import numpy as np
from jax import grad, jit, vmap
from jaxopt import Bisection


def F(x, factor):
  return factor * x ** 3 - x - 2

def root(factor):
  bisec = Bisection(optimality_fun=F, lower=1, upper=2, check_bracket=False)
  return bisec.run(factor=factor).params

print(grad(root)(2.))
print(jit(root)(2.))
print(vmap(root)(np.array([2.,4., 6.])))
