# source: https://github.com/jax-ml/jax/issues/4937
# observed on jax 0.10.2 CPU: `tuple(si) for si in static_arg` iterates a jnp array, so
#   static_tuple is a tuple of 10000 jax Array scalars, not of Python floats; passed as
#   the static argument of static_jac_jitted it cannot be hashed and the call raises
#   "ValueError: Non-hashable static arguments are not supported" (TypeError: unhashable
#   type: 'ArrayImpl'). The thread's code stops after building static_tuple (its timing
#   calls are cut off); the driver in __main__ makes one call with b = 2.0 and catches the
#   error, whose message repeats all 10000 scalars.
# gap: static-hashability
from jax import jit, jacobian
from jax import numpy as jnp
import time


def func(a, b):
    return jnp.einsum('ij->i', a)*b


jitted_jac = jit(jacobian(jit(func)))


def static_jac(a_tuple, b):
    a_arr = jnp.array(a_tuple)
    return jitted_jac(a_arr, b)


static_jac_jitted = jit(static_jac, static_argnums=(0,))

static_arg = jnp.ones((1, 10000))
static_tuple = tuple([tuple(si) for si in static_arg])

if __name__ == "__main__":
    import jax
    import traceback

    assert isinstance(static_tuple[0][0], jax.Array)
    try:
        static_jac_jitted(static_tuple, 2.0)  # expect: JIT302
    except ValueError as e:
        assert "Non-hashable static arguments" in str(e)
        tb = traceback.extract_tb(e.__traceback__)
        # observed: line 38 raises: the static tuple holds jax Arrays
        assert [f.lineno for f in tb if f.filename == __file__][-1] == 38
    else:
        raise AssertionError("expected ValueError")
