# source: https://github.com/google/jaxopt/issues/383
# observed on jax 0.10.2 CPU (jaxopt 0.8.5): grad(root) works; jit(root)(2.) raises
#   TracerBoolConversionError from the `bisec.run(...)` line: Bisection's default
#   check_bracket=True makes its init_state test `if sign == 0:` on the signs of
#   optimality_fun at lower and upper, which depend on the traced `factor` (jaxopt's comment
#   there: "Not jittable..."). vmap(root), next, fails the same way. Added: the imports; the
#   reporter's fix (`check_bracket=False`) is jaxopt383_bisection_no_bracket_check_ok.py.
# gap: cross-module
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
import numpy as np
from jax import grad, jit, vmap
from jaxopt import Bisection


def F(x, factor):
  return factor * x ** 3 - x - 2

def root(factor):
  bisec = Bisection(optimality_fun=F, lower=1, upper=2)
  return bisec.run(factor=factor).params  # expect: JIT101

grad(root)(2.)  # works
jit(root)(2.)  # fails
vmap(root)(np.array([2.,4., 6.]))  # fails
