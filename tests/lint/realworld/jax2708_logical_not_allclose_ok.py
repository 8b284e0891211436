# source: https://github.com/jax-ml/jax/issues/2708 (the maintainer's fix: jnp.logical_not in
#   place of `not`; the reporter's bf and while_loop call kept)
# observed on jax 0.10.2 CPU: runs clean and prints 10.0: the loop condition stays a traced
#   boolean, never converted with bool().
# gap: exemption-vs-JAX
from jax import numpy as jnp
from jax.lax import while_loop


def bf(x):
    return x + 1.0


def cf_ac(x):
    return jnp.logical_not(jnp.allclose(x, 10.0))


print(while_loop(cf_ac, bf, 0.0))

if __name__ == "__main__":
    assert float(while_loop(cf_ac, bf, 0.0)) == 10.0
