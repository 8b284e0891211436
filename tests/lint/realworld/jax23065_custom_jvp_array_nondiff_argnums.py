# source: https://github.com/jax-ml/jax/issues/23065
# observed on jax 0.10.2 CPU: with jax_check_tracer_leaks on, `Exception: Leaked trace DynamicJaxprTrace` raised from the jax.jacobian call (line 26): the array `indices` passed in the nondiff_argnums position is captured as a static value and its tracer leaks
# gap: static-hashability
# (code as posted; nothing added. The posted jvp rule also has the wrong signature for nondiff_argnums and f's body reads the global `indices`; the leak error fires first)
import jax
import jax.numpy as jnp
from functools import partial

jax.config.update("jax_check_tracer_leaks", True)

@partial(jax.custom_jvp, nondiff_argnums=(1,))
def f(x, index):
  return x[indices]

@f.defjvp
def f_jvp(primals, tangents):
  x, indices = primals
  x_dot, _ = tangents
  return f(x, indices), x_dot[indices]

f = jax.jit(f)

x = jnp.arange(10.0)
indices = jnp.array([1, 3, 5])

jax.jacobian(f)(x, indices)  # expect: JIT302
