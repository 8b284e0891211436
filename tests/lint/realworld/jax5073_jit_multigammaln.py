# source: https://github.com/jax-ml/jax/issues/5073 (the example in the description)
# observed on jax 0.10.2 CPU: raises ConcretizationTypeError inside multigammaln, at
#   jnp.arange(d): jit(multigammaln) traces its second argument, the dimension d, which
#   multigammaln uses as a length.
# gap: other
from jax.scipy.special import multigammaln
from jax import jit
jit(multigammaln)(1, 2)  # expect: JIT404
