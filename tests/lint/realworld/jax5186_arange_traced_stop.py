# source: https://github.com/jax-ml/jax/issues/5186
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jax.numpy.arange argument `stop`
#   (n is a traced argument of the jitted function; `np` here is jax.numpy).
# gap: types
import jax.numpy as np
from jax import jit


def test_arange(n):
    return np.arange(0, n, 1)  # expect: JIT404


test = jit(test_arange)

test(5)
