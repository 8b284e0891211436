# source: https://github.com/jax-ml/jax/issues/21730
# observed on jax 0.10.2 CPU: `a_fun(jnp.array([1.0,1.0]),ord=1)` raises ValueError:
#   Non-hashable static arguments are not supported (a DynamicJaxprTracer): jax.jit of
#   jnp.linalg.norm as it is traces the Python int `ord`, and norm hands it on to its own
#   jitted implementation, where `ord` is static. (In the report, on jax 0.4.28, the traced
#   `ord == 2` raised TracerBoolConversionError instead.)
# gap: static-hashability
import jax
import jax.numpy as jnp
a_fun = jax.jit(jnp.linalg.norm)
a_fun(jnp.array([1.0,1.0]),ord=1)  # expect: JIT302  # tolerate: JIT404
