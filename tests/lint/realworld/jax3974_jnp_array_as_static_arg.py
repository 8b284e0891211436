# source: https://github.com/jax-ml/jax/issues/3974
# observed on jax 0.10.2 CPU: the last call raises ValueError: Non-hashable static
#   arguments are not supported (a jax.numpy array passed in the static position 0). The
#   reporter saw a ConcretizationTypeError in `if n > 1` under the jax of that time. The
#   IPython session is written as a script; added: nothing else.
# gap: static-hashability
import jax
import jax.numpy as np

def foo(n):
    if n > 1:
        return np.ones(1)
    return np.zeros(1)

jax.jit(foo, static_argnums=(0,))(1)

jax.jit(foo, static_argnums=(0,))(np.ones(1))  # expect: JIT302
