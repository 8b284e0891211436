# source: https://github.com/singwang-cn/DeepGenerativeModelling/blob/b1c75ca00792d42a65ac19f44da0c4b708bf2f69/train/sample_utils.py
# observed on jax 0.10.2 CPU: sampling_ddpm and sampling_ddim jit their step function
#   recurrent_fn once per sampling run and call it for every denoising step with a Python int
#   timestep (traced, weakly typed: one compile for all 80 DDPM steps and one for all 8 DDIM
#   steps); each step splits the carried rng and returns the new half, so every step draws fresh
#   noise, and the initial noise comes from its own split (JAX's key-reuse checker, run on the
#   file, finds no reuse). get_norm_noise_batch's shape given as jnp.array runs eagerly. Runs clean.
# gap: per-call-recompile
# Kept: sampling_ddpm and sampling_ddim of train/sample_utils.py as written (their commented-out
#   debugging blocks shortened to nothing), with gaussian_reverse_process and ddim_reverse_process
#   (diffusion/diffusion_process.py) and get_norm_noise_batch, get_beta_linear and get_alpha
#   (diffusion/diffusion_utils.py) from the same commit. Trimmed: sampling_xpre, sampling_vae,
#   sampling_sub. Stand-ins (added): a tiny flax noise model taking (x, t, train=False) for the
#   repository's Unet, a logger, and the __main__ block (compile counts through jax.monitoring).
import logging

import jax
from jax import numpy as jnp
from flax import linen as nn


# --- diffusion/diffusion_utils.py (same commit)
def get_beta_linear(num_timesteps, beta_1 = 1e-4, beta_t = 2e-2):
  return jnp.linspace(beta_1, beta_t, num_timesteps, dtype=jnp.float32)

def get_alpha(betas, cum_prod=False):
    alphas = 1. - betas
    if cum_prod:
        return jnp.cumprod(alphas)
    else:
        return alphas

def get_norm_noise_batch(rng, dummy, sample_size):
  _, H, W, C = dummy.shape
  noise_batch = jax.random.normal(rng, jnp.array([sample_size, H, W, C]), dtype=jax.numpy.float32)

  return noise_batch


# --- diffusion/diffusion_process.py (same commit)
@jax.jit
def gaussian_reverse_process(xt, z_rng, eps, comean, coeps, covar):
  z = jax.random.normal(z_rng, xt.shape, dtype=jnp.float32)
  x = comean * (xt - coeps * eps) + covar * z

  return x

@jax.jit
def ddim_reverse_process(xt, z_rng, eps, co1st, co2nd, co3rd, covar):
  z = jax.random.normal(z_rng, xt.shape, dtype=jnp.float32)
  x = co1st * xt - co2nd * eps + co3rd * eps + covar * z

  return x


# --- train/sample_utils.py
def sampling_ddpm(logger, rng, model, params, dummy, alphas, alphas_cum_prod, betas, timesteps, sample_size=32, show_step=None):
  rng, xt_key = jax.random.split(rng)
  
  xt = get_norm_noise_batch(xt_key, dummy, sample_size)
  #xt = norm_neg_one2one(norm_maxmin(xt))
  #xt = jnp.clip(xt, -1., 1.)

  comean = 1. / jnp.sqrt(alphas)
  coeps = betas / jnp.sqrt(1. - alphas_cum_prod)
  ### simple variance
  #covar = jnp.sqrt(betas)
  ### beta_tilde variance
  covar = (1 - alphas_cum_prod[:-1]) / (1 - alphas_cum_prod[1:]) * betas[1:]
  covar = jnp.append(jnp.array([0]), covar, axis=0) ### at the last step, do not add any noise
  covar = jnp.sqrt(covar)
  @jax.jit
  def recurrent_fn(xt, t, rng):
    rng, noise_key = jax.random.split(rng)
    z_rngs = jax.random.split(noise_key, sample_size)
    #if t == 0: z *= 0.  ### at the last step, do not add any noise
    t_vector = jnp.broadcast_to(t, sample_size)
    comean_vector = jnp.broadcast_to(comean[t], sample_size)
    coeps_vector = jnp.broadcast_to(coeps[t], sample_size)
    covar_vector = jnp.broadcast_to(covar[t], sample_size)
    eps = model.apply(params, xt, t_vector, train=False)
    xt = jax.vmap(gaussian_reverse_process)(xt, z_rngs, eps, comean_vector, coeps_vector, covar_vector)
    return xt, eps, rng
  
  for t in reversed(range(200, timesteps)):
    xt, eps, rng = recurrent_fn(xt, t, rng)
    
    if show_step is not None:
      if t % show_step == 0:
        logger.info(f"sampling step {t}\n" \
                    f"beta = {betas[t]} alpha = {alphas[t]} alphas_cum_prod = {alphas_cum_prod[t]}\n" \
                    f"epsilon {eps.max()} {eps.min()} {eps.mean()}\n" \
                    f"x(t-1) {xt.max()} {xt.min()} {xt.mean()}")
  return xt

def sampling_ddim(logger, rng, model, params, dummy, alphas, timesteps, samplesteps, eta=0., sample_size=32, show_step=None):
  rng, xt_key = jax.random.split(rng)
  xt = get_norm_noise_batch(xt_key, dummy, sample_size)
  dt = int(timesteps / samplesteps)
  alphas = jnp.concatenate([jnp.array([1]), alphas])

  @jax.jit
  def recurrent_fn(xt, tau, rng):
    sigma = eta * jnp.sqrt((1 - alphas[tau - dt]) / (1 - alphas[tau])) \
          * jnp.sqrt((1 - alphas[tau] / alphas[tau - dt]))
    co1st = jnp.sqrt(alphas[tau - dt]) / jnp.sqrt(alphas[tau])
    co2nd = jnp.sqrt(alphas[tau - dt]) * jnp.sqrt(1 - alphas[tau]) / jnp.sqrt(alphas[tau])
    co3rd = jnp.sqrt(1 - alphas[tau - dt] - sigma**2)
    rng, noise_key = jax.random.split(rng)
    z_rngs = jax.random.split(noise_key, sample_size)
    tau_vector = jnp.broadcast_to(tau-1, sample_size)
    co1st_vector = jnp.broadcast_to(co1st, sample_size)
    co2nd_vector = jnp.broadcast_to(co2nd, sample_size)
    co3rd_vector = jnp.broadcast_to(co3rd, sample_size)
    covar_vector = jnp.broadcast_to(sigma, sample_size)
    eps = model.apply(params, xt, tau_vector, train=False)
    xt = jax.vmap(ddim_reverse_process)(xt, z_rngs, eps, co1st_vector, co2nd_vector, co3rd_vector, covar_vector)

    return xt, eps, rng

  for tau in range(timesteps, 200, -dt):
    xt, eps, rng = recurrent_fn(xt, tau, rng)

    if show_step is not None:
      if tau % show_step == 0:
        logger.info(f"sampling step {tau}\n" \
                    f"epsilon {eps.max()} {eps.min()} {eps.mean()}\n" \
                    f"x(t-1) {xt.max()} {xt.min()} {xt.mean()}")

  return xt


# --- stand-in (added) for model/models.py's Unet: called as model.apply(params, x, t, train=False)
class TinyEps(nn.Module):
  @nn.compact
  def __call__(self, x, t, train=True):
    temb = nn.Dense(x.shape[-1])(jnp.sin(t.astype(jnp.float32)[:, None] / 100.))
    return nn.Conv(x.shape[-1], (3, 3))(x) + temb[:, None, None, :]


if __name__ == "__main__":
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
      if name == "/jax/core/compile/backend_compile_duration" else None)

  logger = logging.getLogger("dpm")
  timesteps = 280
  betas = get_beta_linear(timesteps, 1e-4, 0.02)
  alphas = get_alpha(betas)
  alphas_cum_prod = get_alpha(betas, cum_prod=True)
  model = TinyEps()
  dummy = jnp.ones([1, 8, 8, 3])
  params = model.init(jax.random.PRNGKey(1), dummy, jnp.ones(dummy.shape[0]))

  rng = jax.random.PRNGKey(0)
  rng, sample_rng = jax.random.split(rng)
  before = len(compiles)
  x = sampling_ddpm(logger, sample_rng, model, params, dummy, alphas, alphas_cum_prod, betas,
                    timesteps, sample_size=4, show_step=40)
  n = sum(1 for f in compiles[before:] if f and "recurrent_fn" in f)
  assert n == 1, compiles[before:]
  assert bool(jnp.all(jnp.isfinite(x)))

  rng, sample_rng = jax.random.split(rng)
  before = len(compiles)
  x2 = sampling_ddim(logger, sample_rng, model, params, dummy, alphas_cum_prod, timesteps, 28,
                     eta=1.0, sample_size=4)
  n = sum(1 for f in compiles[before:] if f and "recurrent_fn" in f)
  assert n == 1, compiles[before:]
  assert bool(jnp.all(jnp.isfinite(x2)))
  print("ddpm", x.shape, "ddim", x2.shape, "ok")
