# source: https://github.com/dynamiqs/dynamiqs/pull/406 (the _PWCFactor.__call__ under
#   review, which the reviewer flagged for jit; the class around it is reduced to the
#   two fields the method uses)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at the `if` when the factor is
#   evaluated at a traced time inside jit.
# gap: other
import jax
import jax.numpy as jnp
from jax import Array


class _PWCFactor:
    def __init__(self, times, values):
        self.times = times
        self.values = values

    def __call__(self, t) -> Array:
        if t < self.times[0] or t >= self.times[-1]:  # expect: JIT101  # tolerate: JIT103
            return jnp.zeros_like(self.values[..., 0])  # (...)
        else:
            # find the index $k$ such that $t \in [t_k, t_{k+1})$
            idx = jnp.searchsorted(self.times, t, side='right') - 1
            return self.values[..., idx]  # (...)


factor = _PWCFactor(jnp.array([0.0, 1.0, 2.0]), jnp.array([[1.0, 3.0]]))
print(factor(0.5))
jax.jit(lambda t: factor(t))(0.5)
