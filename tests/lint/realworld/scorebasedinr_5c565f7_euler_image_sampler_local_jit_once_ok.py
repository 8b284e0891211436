# source: https://github.com/Ricvalp/score-based-inr-generation/blob/5c565f79df97a867273fa6ed90cc2b4f3e57fe65/sampling/euler_image_sampler.py
#   (with marginal_prob_std and diffusion_coeff of score_based_model/utils.py and the call of sample_pixels.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; the sampler jits its local score_fn once per call and reuses it for all 500
#   Euler-Maruyama steps (one compile of score_fn for the single call sample_pixels.py makes), and splits a fresh key
#   for the initial noise and for every step's noise: the samples of the batch differ
# gap: exemption-vs-JAX
# (kept: Euler_Maruyama_image_sampler as written. Added: marginal_prob_std and diffusion_coeff copied from
#  score_based_model/utils.py; a stand-in flax ScoreNet for the repository's U-Net; the __main__ block, which calls
#  the sampler as sample_pixels.py does (functools.partial of the two helpers with sigma, one call).)
import functools

import jax
import jax.numpy as jnp
import flax.linen as nn
from tqdm import tqdm

from functools import partial


def marginal_prob_std(t, sigma):
  """Compute the mean and standard deviation of $p_{0t}(x(t) | x(0))$."""
  return jnp.sqrt((sigma**(2 * t) - 1.) / 2. / jnp.log(sigma))

def diffusion_coeff(t, sigma):
  """Compute the diffusion coefficient of our SDE."""
  return sigma**t


def Euler_Maruyama_image_sampler(rng,
                           score_model,
                           params,
                           marginal_prob_std,
                           diffusion_coeff,
                           batch_size=64,
                           num_steps=500,
                           eps=1e-3):
  """Generate samples from score-based models with the Euler-Maruyama solver.

  Args:
    rng: A JAX random state.
    score_model: A `flax.linen.Module` object that represents the architecture
      of a score-based model.
    params: A dictionary that contains the model parameters.
    marginal_prob_std: A function that gives the standard deviation of
      the perturbation kernel.
    diffusion_coeff: A function that gives the diffusion coefficient of the SDE.
    batch_size: The number of samplers to generate by calling this function once.
    num_steps: The number of sampling steps. 
      Equivalent to the number of discretized time steps.    
    eps: The smallest time step for numerical stability.
  
  Returns:
    Samples.    
  """

  @jax.jit
  def score_fn(x, t):
    return score_model.apply(params, x, t)

  rng, step_rng = jax.random.split(rng)  
  time_shape = (batch_size,)
  sample_shape = time_shape + (28, 28, 1)
  init_x = jax.random.normal(step_rng, sample_shape) * marginal_prob_std(1.)
  time_steps = jnp.linspace(1., eps, num_steps)
  step_size = time_steps[0] - time_steps[1]
  x = init_x
  for time_step in tqdm(time_steps):      
    batch_time_step = jnp.ones(time_shape) * time_step
    g = diffusion_coeff(time_step)
    mean_x = x + (g**2) * score_fn(
      x,
      batch_time_step
      ) * step_size
    rng, step_rng = jax.random.split(rng)
    x = mean_x + jnp.sqrt(step_size) * g * jax.random.normal(step_rng, x.shape)      
  # Do not include any noise in the last sampling step.
  return mean_x


class ScoreNet(nn.Module):  # stand-in for the repository's score U-Net
  marginal_prob_std: callable

  @nn.compact
  def __call__(self, x, t):
    h = nn.Conv(4, (3, 3))(x)
    h = h + nn.Dense(4)(t[:, None])[:, None, None, :]
    h = nn.Conv(1, (3, 3))(nn.swish(h))
    return h / self.marginal_prob_std(t)[:, None, None, None]


if __name__ == "__main__":
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
      if name == "/jax/core/compile/backend_compile_duration" else None)

  sigma = 25.0
  marginal_prob_std_fn = functools.partial(marginal_prob_std, sigma=sigma)
  diffusion_coeff_fn = functools.partial(diffusion_coeff, sigma=sigma)
  model = ScoreNet(marginal_prob_std_fn)
  params = model.init(jax.random.PRNGKey(0), jnp.ones((2, 28, 28, 1)), jnp.ones((2,)))

  samples = Euler_Maruyama_image_sampler(
      jax.random.PRNGKey(1), model, params, marginal_prob_std_fn, diffusion_coeff_fn, 4)
  assert samples.shape == (4, 28, 28, 1)
  assert bool(jnp.isfinite(samples).all())
  assert not bool(jnp.allclose(samples[0], samples[1]))
  n = compiles.count("jit(score_fn)")
  print("jit(score_fn) compiles for one sampler call of 500 steps:", n)
  assert n == 1, n
