# source: https://github.com/jax-ml/jax/issues/2506
# observed on jax 0.10.2 CPU: the jitted lambda raises ConcretizationTypeError in
#   jax.numpy.split: the number of sections `idx` is a traced argument, and it decides
#   the number and shapes of the outputs. Added: the imports (`np` as jax.numpy, as in
#   JAX's own code of the time); `api.jit` (jax.api, removed) is spelled `jax.jit`; the
#   closing parenthesis missing after `idx)` in the report is restored.
# gap: omnistaging
import jax
import jax.numpy as np

jax.jit(lambda idx: np.split(np.zeros((6,2)), idx))(2)  # expect: JIT404
