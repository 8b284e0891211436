# source: https://github.com/patrick-kidger/equinox/issues/1036 (the two versions the
#   reporter says work: filter_jit, and jax.jit with the mask static)
# observed on jax 0.10.2 CPU: both run clean; the mask of Python bools stays a Python
#   value (static under jax.jit, a non-array leaf under filter_jit). Imports and the
#   calls are added; the second definition is renamed partition2 so both can run.
# gap: static-hashability
from functools import partial

import equinox as eqx
import jax

@eqx.filter_jit
def partition(params, params_mask):
    return eqx.partition(params, filter_spec=params_mask)

@partial(jax.jit, static_argnames=["params_mask"])
def partition2(params, params_mask):
    return eqx.partition(params, filter_spec=params_mask)

params = ((1., 2.), 3.)
params_mask = ((True, False), False)

if __name__ == "__main__":
    a, b = partition(params, params_mask)
    c, d = partition2(params, params_mask=params_mask)
    assert float(a[0][0]) == 1.0 and a[0][1] is None
    assert float(c[0][0]) == 1.0 and c[0][1] is None
