# source: https://github.com/jax-ml/jax/pull/3656 (the code given in the description, from
#   the report in jax#3654)
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jax.nn.one_hot argument
#   `num_classes`: jit traces both positional arguments, so the class count is a tracer.
# gap: other
from jax import jit
from jax.nn import one_hot

jit(one_hot)(3, 5)  # expect: JIT404
