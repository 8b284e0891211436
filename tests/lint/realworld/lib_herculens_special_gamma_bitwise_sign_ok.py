# source: https://github.com/Herculens/herculens/blob/f4069b6fc8e07ccd0c65ca1ed484cbe626a9797b/herculens/Util/jax_util.py
#   (class `special` with its jitted staticmethod `gamma` verbatim, docstring shortened.
#   Added: the __main__ block, which checks it against math.gamma.)
# observed on jax 0.10.2 CPU: runs clean under jit: the sign test combines traced
#   comparisons with `|`, element-wise on arrays, not with Python `or`; scalars and arrays,
#   positive and negative non-integer inputs match math.gamma.
# gap: exemption-vs-JAX
import jax.numpy as jnp
from jax import jit
from jax.scipy.special import gammaln


class special(object):
    @staticmethod
    @jit
    def gamma(x):
        """Gamma function.

        Values of the function are computed simply as the exponential of the
        logarithm of the gamma function (which has been implemented in jax),
        taking the sign of negative inputs properly into account.
        """
        # Properly account for the sign of negative x values
        sign_condition = (x > 0) | (jnp.ceil(x) % 2 != 0) | (x % 2 == 0)
        sign = 2 * jnp.asarray(sign_condition, dtype=float) - 1
        return sign * jnp.exp(gammaln(x))


if __name__ == "__main__":
    import math

    xs = [0.5, 1.7, 3.2, -0.5, -1.5, -2.5, -3.3]
    values = special.gamma(jnp.array(xs))
    for x, v in zip(xs, values):
        assert abs(float(v) - math.gamma(x)) < 1e-4 * max(1.0, abs(math.gamma(x))), (x, v)
    assert abs(float(special.gamma(4.0)) - 6.0) < 1e-4
