# source: https://github.com/jax-ml/jax/issues/4585 (the reporter's own replacement, in a later
#   comment, for the one-argument `jnp.where(a == jnp.max(a))` when the maximum is
#   unique)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: argmax and unravel_index give
#   indices of a static shape, where one-argument jnp.where would need size=. Added: the
#   imports, the function wrapping the comment's expression and the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def argmax_index(a):
  #jnp.where(a=jnp.max(a))
  return jnp.unravel_index(jnp.argmax(a.flatten()), a.shape)


if __name__ == "__main__":
    a = jnp.array([[0., 3., 1.], [2., 5., 4.]])
    i, j = jax.jit(argmax_index)(a)
    assert (int(i), int(j)) == (1, 1)
