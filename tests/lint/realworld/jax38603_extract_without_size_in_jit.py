# source: https://github.com/jax-ml/jax/issues/38603 (Reproducer 2 of the report)
# observed on jax 0.10.2 CPU: the eager call prints (16,); jax.jit(f)(t) raises
#   TracerBoolConversionError inside jnp.extract (it calls jnp.compress, whose size=None
#   branch needs the values of the traced mask to size the result).
# gap: other
import jax
import jax.numpy as jnp

t = jnp.ones((4, 4), dtype=jnp.float32)

def f(x):
    return jnp.extract(x > 0, x)  # expect: JIT403

print(f(t).shape)    # eager: (16,)
jax.jit(f)(t)        # crashes
