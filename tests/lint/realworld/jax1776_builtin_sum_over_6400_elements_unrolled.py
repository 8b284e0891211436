# source: https://github.com/jax-ml/jax/issues/1776
# observed on jax 0.10.2 CPU: the builtin `sum(...)` in integrate iterates over the 6400
#   elements of a traced array, so jit traces 6400 element slices and 6400 additions: the
#   jaxpr of integrate has more than 12800 equations, and its compilation is slow (the
#   report: 134 s at 6400 points, superlinear in integr_resolution; jnp.sum gives a
#   program of a handful of equations). Added: the __main__ block, which counts the
#   equations.
# gap: other
import time

import jax.numpy as np
from jax import jit
from jax.scipy.stats.norm import pdf

# set up evaluation points for numerical integration
integr_resolution = 6400
lower_bound = -100
upper_bound = 100
integr_grid = np.linspace(lower_bound, upper_bound, integr_resolution)
proba = pdf(integr_grid)
integration_weight = (upper_bound - lower_bound) / integr_resolution


# integrate with new mean
def integrate(mu_new):
    x_new = integr_grid - mu_new

    proba_new = pdf(x_new)
    total_proba = sum(proba * proba_new * integration_weight)  # expect: JIT303

    return total_proba


print('starting jit')
start = time.perf_counter()
integrate = jit(integrate)
integrate(1)
stop = time.perf_counter()
print('took: ', stop - start)


if __name__ == "__main__":
    import jax

    jaxpr = jax.make_jaxpr(integrate)(1.0)
    inner = jaxpr.eqns[0].params["jaxpr"].jaxpr
    # observed: line 29 unrolls into one slice and one add per element
    assert len(inner.eqns) > 2 * integr_resolution, len(inner.eqns)
