# source: https://crackedaicode.com/problems/jax-jit-donate-argnums
#   (a course problem page, "jit with donate_argnums": its worked mini-example)
# observed on jax 0.10.2 CPU: runs clean; params is rebound to the result of the donating
#   call, so the donated buffer is never read again (CPU ignores the donation with a
#   warning). Added: the __main__ block, which calls the update again the same way.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

params = jnp.ones((4,))
grads = jnp.full((4,), 0.01)

update = jax.jit(lambda p, g: p - g, donate_argnums=(0,))

params = update(params, grads)
# params now holds [0.99, 0.99, 0.99, 0.99]
# the old params buffer has been donated — do NOT read it again.

if __name__ == "__main__":
    params = update(params, grads)
    assert jnp.allclose(params, 0.98)
