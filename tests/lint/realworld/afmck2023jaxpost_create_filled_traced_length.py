# source: https://github.com/vvvm23/vvvm23.github.io/blob/df758ee5428be3732205edbe0efded2f57b2e8aa/content/posts/2023-05-22-jax-post/index.md (blog post "Jax Post" by Alexander McKinney, afmck.in/posts/2023-05-22-jax-post, section "Jit needs static shapes": the post's fix is jax.jit(create_filled, static_argnums=(1,)))
# observed on jax 0.10.2 CPU: the eager calls print [1. 1. 1. 1. 1.] and [2 2]; jax.jit(create_filled)(2, 5) raises TypeError "Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(~int32[]),)" at the jnp.full line, as in the post's own output
# gap: flow-sensitive
# (added: the imports; the notebook output lines after `===` dropped)
import jax
import jax.numpy as jnp


def create_filled(val, length):
  return jnp.full((length,), val)  # expect: JIT404

print(create_filled(1.0, 5))
print(create_filled(2, 2))

jit_create_filled = jax.jit(create_filled)
jit_create_filled(2, 5)
