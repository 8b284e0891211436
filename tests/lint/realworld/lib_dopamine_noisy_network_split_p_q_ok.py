# source: https://github.com/google/dopamine/blob/5a13b1115d39c274d0d75644f70eaf8dfed84e98/dopamine/jax/networks.py
#   (NoisyNetwork after commit 5a13b11, "Use uncorrelated noise in NoisyNetworks", which
#   splits self.rng_key into rng_p and rng_q)
# observed on jax 0.10.2 CPU: runs clean under jax.jit(model.apply) with
#   jax_debug_key_reuse on; p and q come from two keys, so with as many inputs as features
#   the weight noise w_epsilon = f(p) * f(q) is not symmetric (it is read back through the
#   layer with kernel_mu = 0, kernel_sigma = 1, bias_mu = 0). Only NoisyNetwork is kept;
#   `@gin.configurable` is dropped (gin is not installed) and the field's annotation
#   `jax.interpreters.xla.DeviceArray` is spelled `jax.Array`.
# gap: other
from flax import linen as nn
import jax
import jax.numpy as jnp
import numpy as onp


### Noisy Nets for FullRainbowNetwork ###
class NoisyNetwork(nn.Module):
  """Noisy Network from Fortunato et al. (2018).

  Attributes:
    rng_key: jax.interpreters.xla.DeviceArray, key for JAX RNG.
    eval_mode: bool, whether to turn off noise during evaluation.
  """
  rng_key: jax.Array
  eval_mode: bool = False

  @staticmethod
  def sample_noise(key, shape):
    return jax.random.normal(key, shape)

  @staticmethod
  def f(x):
    # See (10) and (11) in Fortunato et al. (2018).
    return jnp.multiply(jnp.sign(x), jnp.power(jnp.abs(x), 0.5))

  @nn.compact
  def __call__(self, x, features, bias=True, kernel_init=None):

    def mu_init(key, shape):
      # Initialization of mean noise parameters (Section 3.2)
      low = -1 / jnp.power(x.shape[0], 0.5)
      high = 1 / jnp.power(x.shape[0], 0.5)
      return jax.random.uniform(key, minval=low, maxval=high, shape=shape)

    def sigma_init(key, shape, dtype=jnp.float32):  # pylint: disable=unused-argument
      # Initialization of sigma noise parameters (Section 3.2)
      return jnp.ones(shape, dtype) * (0.1 / onp.sqrt(x.shape[0]))

    if self.eval_mode:
      # Turn off noise during evaluation
      w_epsilon = onp.zeros(shape=(x.shape[0], features), dtype=onp.float32)
      b_epsilon = onp.zeros(shape=(features,), dtype=onp.float32)
    else:
      # Factored gaussian noise in (10) and (11) in Fortunato et al. (2018).
      rng_p, rng_q = jax.random.split(self.rng_key, num=2)
      p = NoisyNetwork.sample_noise(rng_p, [x.shape[0], 1])
      q = NoisyNetwork.sample_noise(rng_q, [1, features])
      f_p = NoisyNetwork.f(p)
      f_q = NoisyNetwork.f(q)
      w_epsilon = f_p * f_q
      b_epsilon = jnp.squeeze(f_q)

    # See (8) and (9) in Fortunato et al. (2018) for output computation.
    w_mu = self.param('kernel_mu', mu_init, (x.shape[0], features))
    w_sigma = self.param('kernel_sigma', sigma_init, (x.shape[0], features))
    w = w_mu + jnp.multiply(w_sigma, w_epsilon)
    ret = jnp.matmul(x, w)

    b_mu = self.param('bias_mu', mu_init, (features,))
    b_sigma = self.param('bias_sigma', sigma_init, (features,))
    b = b_mu + jnp.multiply(b_sigma, b_epsilon)
    return jnp.where(bias, ret + b, ret)


if __name__ == "__main__":
  jax.config.update("jax_debug_key_reuse", True)
  n = 6
  init_key, noise_key = jax.random.split(jax.random.key(0))
  # eval_mode draws no noise at init: noise_key is only used by the jitted call below
  params = NoisyNetwork(rng_key=noise_key, eval_mode=True).init(init_key, jnp.ones(n), n)
  model = NoisyNetwork(rng_key=noise_key)
  # read the noise back: kernel_mu = bias_mu = 0 and sigmas = 1 make w = w_epsilon and
  # b = b_epsilon; row 0 (a zero input) gives b, rows 1..n give the rows of w plus b
  probe = jax.tree_util.tree_map(jnp.zeros_like, params)
  probe['params']['kernel_sigma'] = jnp.ones((n, n))
  probe['params']['bias_sigma'] = jnp.ones((n,))
  xs = jnp.concatenate([jnp.zeros((1, n)), jnp.eye(n)])
  out = jax.jit(jax.vmap(lambda x: model.apply(probe, x, n)))(xs)
  w_epsilon = out[1:] - out[0]
  # p and q come from two keys: the weight noise is not symmetric
  assert not jnp.allclose(w_epsilon, w_epsilon.T, atol=1e-6), w_epsilon
