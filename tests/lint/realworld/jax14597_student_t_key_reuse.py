# source: https://github.com/jax-ml/jax/issues/14597 (the body of jax._src.random._t quoted
#   in the report)
# observed on jax 0.10.2 CPU: the gamma component is drawn with key_n, the key the normal
#   component was drawn with; key_g is never used. The function header (`def _t(key, df,
#   shape, dtype)`, jax's private signature), the imports and stand-ins for the private
#   helpers `_split` (jax.random.split) and `_lax_const` are added.
# gap: other
import jax
import jax.numpy as jnp
from jax import lax
from jax.random import gamma, normal

_split = jax.random.split

def _lax_const(x, val):
  return jnp.array(val, dtype=x.dtype)

def _t(key, df, shape, dtype):
  df = lax.convert_element_type(df, dtype)
  key_n, key_g = _split(key)
  n = normal(key_n, shape, dtype)
  two = _lax_const(n, 2)
  half_df = lax.div(df, two)
  g = gamma(key_n, half_df, shape, dtype)  # expect: JIT502
  return n * jnp.sqrt(half_df / g)

if __name__ == "__main__":
    key = jax.random.PRNGKey(0)
    shape, dtype, df = (1000,), jnp.float32, 3.0
    t = _t(key, df, shape, dtype)
    key_n, key_g = _split(key)  # tolerate: JIT502
    # observed: line 24 draws g from key_n, the normal's key, instead of key_g
    g_same = gamma(key_n, jnp.float32(df) / 2, shape, dtype)  # tolerate: JIT502
    g_meant = gamma(key_g, jnp.float32(df) / 2, shape, dtype)
    n = normal(key_n, shape, dtype)  # tolerate: JIT502
    assert jnp.allclose(t, n * jnp.sqrt((df / 2) / g_same), rtol=1e-5)
    assert not jnp.allclose(t, n * jnp.sqrt((df / 2) / g_meant), rtol=1e-5)
