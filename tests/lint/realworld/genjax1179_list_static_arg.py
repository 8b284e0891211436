# source: https://github.com/genjax-community/genjax/issues/1179
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (a list passed as static argument 0).
# gap: static-hashability
import jax


def foo(x):
  return x[0] + 1
jfoo = jax.jit(foo, static_argnums=(0,))
jfoo([2])  # expect: JIT302
