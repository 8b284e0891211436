# source: https://github.com/jax-ml/jax/issues/2813
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   at the first call with a list as static argument 1 (when the issue was filed, a list
#   was hashed by identity and every call recompiled). The print is the user's deliberate
#   trace-time marker, so it is tolerated; the second call repeats the bug of the first
#   and is tolerated too.
# gap: static-hashability
import jax

def g(x, y):
  print("recompiling")  # tolerate: JIT203
  return x + y[0]

f = jax.jit(g, static_argnums=(1,))
f(1, [2, 3])  # expect: JIT302
f(1, [2, 3])  # tolerate: JIT302
