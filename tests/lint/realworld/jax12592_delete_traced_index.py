# source: https://github.com/jax-ml/jax/issues/12592 (the workaround and the "desired state"
#   in the description, and zhangqiaorjc's static_argnums reply)
# observed on jax 0.10.2 CPU: the workaround (a jnp.where over indices, then a static
#   [:-1] slice) and jnp.delete jitted with its index static both run; the desired
#   jnp.delete(x, i) with a traced i raises ConcretizationTypeError ("'obj' array argument
#   of jnp.delete()") at the jnp.delete line: the deleted position decides the output, and
#   jnp.delete needs it as a Python value. Added: imports, a stand-in for the elided
#   _complex_jittable_function (a sum), the inputs and the calls.
# gap: other
import jax
import jax.numpy as jnp


def _complex_jittable_function(x):
  return jnp.sum(x)


# Current workaround:
@jax.jit
def apply_except_one(x, i):
  idx = jnp.arange(x.shape[0])
  idx = jnp.where(idx >= i, idx + 1, idx)[:-1]
  return _complex_jittable_function(x[idx])


print(apply_except_one(jnp.arange(5), 2))

print(jax.jit(jnp.delete, static_argnums=1)(jnp.arange(5), 2))


# Desired state:
@jax.jit
def apply_except_one(x, i):
  return _complex_jittable_function(jnp.delete(x, i))  # expect: JIT404


print(apply_except_one(jnp.arange(5), 2))
