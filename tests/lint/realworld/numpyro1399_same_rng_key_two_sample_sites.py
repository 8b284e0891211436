# source: https://github.com/pyro-ppl/numpyro/issues/1399 (the reporter's model)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `model_fixed` hands the one `rng_key` to
#   both sample sites. When `y` is not observed (the model's default, y_obs=None), the site
#   draws its standard normal from the key `u_y` already consumed: the noise of `y` is `u_y`
#   itself, so (y - x - u_y) / 0.0001 equals u_y. The reporter's conditioned call is kept in
#   __main__ (with obs given, `y` draws nothing); the check is added.
# gap: other
import numpyro
import jax.numpy as jnp
from jax.random import PRNGKey

def model_fixed(y_obs=None, rng_key=None):
    x = 1.0
    u_y_dist = numpyro.distributions.Normal(0, 1)
    u_y = numpyro.sample('u_y', u_y_dist, rng_key=rng_key)

    y_dist = numpyro.distributions.Normal(u_y + x, scale=0.0001)
    y = numpyro.sample('y', y_dist, obs=y_obs, rng_key=rng_key)  # expect: JIT502
    return x, u_y, y


if __name__ == "__main__":
    model_fixed(y_obs=jnp.array(0.00, dtype=jnp.float32), rng_key=PRNGKey(0))
    x, u_y, y = model_fixed(rng_key=PRNGKey(1))
    # observed: line 18 draws the noise of y from the key u_y was drawn from
    assert jnp.allclose((y - x - u_y) / 0.0001, u_y, rtol=1e-2), (u_y, y)
