# source: https://github.com/jax-ml/jax/issues/12652
# observed on jax 0.10.2 CPU: runs clean; jit(switch_fun)(1) returns [True, True], the same
#   as the un-jitted call (the reported [True, False] came from a jaxlib 0.3.20 Windows build
#   and was not reproduced by the maintainers).
# gap: exemption-vs-JAX
import jax.numpy as jnp
from jax import jit, lax


def case_00():
    mask = jnp.array([False, False])
    return mask

def case_11():
    mask = jnp.array([True, True])
    return mask

def switch_fun(index):
    branches = [case_00, case_11]
    return lax.switch(index, branches)

if __name__ == "__main__":
    print(switch_fun(1)) # [ True  True]
    print(jit(switch_fun)(1)) # [ True  False] Should be [ True  True]
    assert (switch_fun(1) == jit(switch_fun)(1)).all()
    assert (jit(switch_fun)(0) == jnp.array([False, False])).all()
