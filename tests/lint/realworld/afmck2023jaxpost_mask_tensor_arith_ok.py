# source: https://github.com/vvvm23/vvvm23.github.io/blob/df758ee5428be3732205edbe0efded2f57b2e8aa/content/posts/2023-05-22-jax-post/index.md (blog post "Jax Post" by Alexander McKinney, afmck.in/posts/2023-05-22-jax-post, section "Jit needs static shapes": the rewrite of mask_tensor with static shapes)
# observed on jax 0.10.2 CPU: runs clean; the jitted and eager results agree
# gap: types
# (added: the imports, the post's earlier key and mask cells, and a __main__ check that eager and jitted outputs agree; the notebook output lines after `===` dropped)
import jax
import jax.numpy as jnp

seed = 0x123456789 # some integer seed. In hexadecimal just to be ✨✨
key = jax.random.PRNGKey(seed) # create the initial key

key, x_key, mask_key = jax.random.split(key, 3)
x = jax.random.normal(x_key, (4,4))
mask = jax.random.uniform(mask_key, (4,4)) < 0.5


def mask_tensor(x, mask):
  x = ~mask * x - mask*100.
  return x

print("calling eager function")
print(mask_tensor(x, mask))

print("calling compiled function")
jit_mask_tensor = jax.jit(mask_tensor)
print(jit_mask_tensor(x, mask))


if __name__ == "__main__":
    eager = mask_tensor(x, mask)
    compiled = jit_mask_tensor(x, mask)
    assert jnp.allclose(eager, compiled)
    assert jnp.allclose(compiled, jnp.where(mask, -100.0, x))
    print("OK: jitted mask_tensor matches eager and jnp.where")
