# source: https://github.com/jax-ml/jax/issues/2708
# observed on jax 0.10.2 CPU: the first while_loop prints 10.0; the second raises
#   TracerBoolConversionError at `not jnp.allclose(...)`: `not` calls bool() on the traced
#   result inside the loop condition (the maintainer's fix is jnp.logical_not).
# gap: other
from jax import numpy as jnp
from jax.lax import while_loop


def bf(x):
    return x + 1.0


def cf_ac(x):
    return not jnp.allclose(x, 10.0)  # expect: JIT103


def cf_explicit(x):
    return jnp.abs(x - 10.0) > 1e-4


print(while_loop(cf_explicit, bf, 0.0))
print(while_loop(cf_ac, bf, 0.0))
