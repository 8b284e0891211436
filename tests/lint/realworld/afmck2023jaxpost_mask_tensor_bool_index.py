# source: https://github.com/vvvm23/vvvm23.github.io/blob/df758ee5428be3732205edbe0efded2f57b2e8aa/content/posts/2023-05-22-jax-post/index.md (blog post "Jax Post" by Alexander McKinney, afmck.in/posts/2023-05-22-jax-post, section "Jit needs static shapes")
# observed on jax 0.10.2 CPU: the eager call works; jax.jit(mask_tensor)(x, mask) raises NonConcreteBooleanIndexError ("Array boolean indices must be concrete; got bool[4,4]") at the x.at[mask].set line, as in the post's own output
# gap: types
# (added: the imports and the post's earlier key cell `key = jax.random.PRNGKey(0x123456789)`; the notebook output lines after `===` dropped)
import jax
import jax.numpy as jnp

seed = 0x123456789 # some integer seed. In hexadecimal just to be ✨✨
key = jax.random.PRNGKey(seed) # create the initial key


def mask_tensor(x, mask):
  x = x.at[mask].set(-100.)  # expect: JIT403
  return x

key, x_key, mask_key = jax.random.split(key, 3)
x = jax.random.normal(x_key, (4,4))
mask = jax.random.uniform(mask_key, (4,4)) < 0.5

print("calling eager function")
print(mask_tensor(x, mask))

print("calling compiled function")
jit_mask_tensor = jax.jit(mask_tensor)
jit_mask_tensor(x, mask)
