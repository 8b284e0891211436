# source: https://github.com/spdes/computational-sde-intro-lecture/blob/56db96b7365e93a6819843cc53aed63fed06faea/lectures/seminar_lectures/zhao_jax_workshop/2-jax_clinic_jit.ipynb
#   (a JAX workshop's notebook, "JIT in JAX": the first cells of its "Will these work?"
#   quiz, in order)
# observed on jax 0.10.2 CPU: my_func(jnp.ones((2, ))) raises TracerArrayConversionError
#   at `np.exp(x)`: NumPy converts its argument to an array, and a tracer has no value.
#   The cells after it (adding a NumPy constant under jit, a method jitted with `self`
#   static) are correct and do not run. Left out: the quiz's class that jits a method
#   with `self` traced and its `x[0] = 1.` cell, not about this bug. Added: nothing.
# gap: types
import numpy as np
import jax
import jax.numpy as jnp

@jax.jit
def my_func(x):
    return np.exp(x)  # expect: JIT402

my_func(jnp.ones((2, )))

@jax.jit
def my_func(x):
    return x + np.array([1., 2.])

my_func(jnp.ones((2, )))
my_func(np.ones((2, )))

from functools import partial

class MyClass:

    def __init__(self):
        self.y = jnp.array(1.)

    @partial(jax.jit, static_argnums=(0, ))
    def my_method(self, x):
        return x + self.y
    
obj = MyClass()
obj.my_method(jnp.array(2.))
