# source: https://github.com/jax-ml/jax/issues/38603 (Reproducer 1 of the report)
# observed on jax 0.10.2 CPU: the eager call prints (16,); jax.jit(f)(t) raises
#   TracerBoolConversionError inside jnp.compress (its size=None branch tests
#   `reductions.any(extra)` on the traced condition): the output size depends on the
#   values of the mask. The fix (jax#38612, after 0.10.2) turns this into a
#   ConcretizationTypeError asking for `size=`.
# gap: other
import jax
import jax.numpy as jnp

t = jnp.ones((4, 4), dtype=jnp.float32)

def f(x):
    return jnp.compress(x.ravel() > 0, x.ravel())  # expect: JIT403

print(f(t).shape)    # eager: (16,)
jax.jit(f)(t)        # crashes
