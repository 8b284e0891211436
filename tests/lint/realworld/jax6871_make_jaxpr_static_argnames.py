# source: https://github.com/jax-ml/jax/issues/6871 (the example in the description)
# observed on jax 0.10.2 CPU: raises ValueError "Non-hashable static arguments are not
#   supported" at the make_jaxpr call: make_jaxpr traces every argument, so the value
#   reaching jit_func's static argument y is a tracer, which cannot be hashed.
# gap: static-hashability
import jax

def my_func(x, y):
  return x + y

jit_func = jax.jit(my_func, static_argnames={'y'})
jax.make_jaxpr(jit_func)(1, 2)  # expect: JIT302
