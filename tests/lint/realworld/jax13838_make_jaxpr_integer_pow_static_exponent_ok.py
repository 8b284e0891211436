# source: https://github.com/jax-ml/jax/issues/13838 (the answer in the thread: the exponent
#   has to be static, `static_argnums=(1,)`)
# observed on jax 0.10.2 CPU: runs clean; the exponent stays the Python int 4 and the jaxpr
#   is `integer_pow[y=4] a`. Added: the inputs of the report.
# gap: exemption-vs-JAX
import jax
from jax import lax

x: float = jax.numpy.arange(100, dtype=float)
y: int = 4

jax.make_jaxpr(lax.integer_pow, static_argnums=(1,))(x, y)
