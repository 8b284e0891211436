# source: https://github.com/ATML-2022-Group6/inference-suboptimality/blob/5c0c05815fa0cbfd4ab7e73e81dab7a129527601/train_vae.py
# observed on jax 0.10.2 CPU: dataset_elbo jits a fresh local full_elbo on every call (every display epoch), so it is traced and compiled again each time; the epoch key is used both for training and for the test ELBO
# gap: per-call-recompile
# (the next commit 72e0ef40020825021deef263200d4d34fcbee2d3 "More train fix" moves the jit to a module-level `@partial(jit, static_argnums=(0,)) def dataset_elbo`)
# (added: HyperParams, log_bernoulli, gaussian_kld, log_normal, save_params from utils.py and make_mlp/VAE.__init__/init_params/run
#  from vae.py at the same commit; a stand-in for flow.build_aux_flow (has_flow=False never calls it); `utils.` prefixes served by
#  a SimpleNamespace; tqdm.notebook imported as plain tqdm; small sizes and random binary data)
import pickle
import time
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace
from typing import Callable

import jax
from jax import jit
from jax import numpy as jnp
from jax import random
from jax.example_libraries import optimizers
from jax.example_libraries import stax
from jax.tree_util import tree_map
from tqdm import tqdm, trange


@dataclass
class HyperParams:
  image_size: int = 28 * 28
  latent_size: int = 50
  encoder_hidden: tuple = (200, 200)
  decoder_hidden: tuple = (200, 200)
  # Flow params
  has_flow: bool = False
  num_flows: int = 2
  flow_hidden_size: int = 200

def log_bernoulli(logit, target):
  # Numerically equivalent to Binary Cross Entropy loss (TODO: How?)
  bce_loss = jnp.maximum(logit, 0.) - logit * target + jnp.logaddexp(0., -jnp.abs(logit))
  return -jnp.sum(bce_loss)

# Equivalent to below
# def log_sigmoid(x):
#   return -jnp.logaddexp(0, -x)
# def bce(logit, target):
#   return jnp.sum( target * log_sigmoid(logit) + (1 - target) * log_sigmoid(-logit) )

def gaussian_kld(mu, logvar):
  return -0.5 * jnp.sum(1. + logvar - mu**2. - jnp.exp(logvar))

def log_normal(x, mean=0., logvar=0.):
  """ Gaussian log-pdf (correct only up to constant) """
  return -0.5 * jnp.sum(logvar + (x - mean)**2 / jnp.exp(logvar))

def save_params(file_name, params):
  with open(file_name, "wb") as f:
    pickle.dump(params, f)


def build_aux_flow(hps: HyperParams):  # stand-in for flow.build_aux_flow
  return None, None


utils = SimpleNamespace(save_params=save_params)


def make_mlp(layer_sizes, act_fun=stax.Elu):
  layers = []
  for width in layer_sizes:
    layers.append(stax.Dense(width))
    layers.append(act_fun)
  return layers

class VAE:

  def __init__(self, hps: HyperParams):
    self.encoder_init, self.encoder = stax.serial(
      *make_mlp(hps.encoder_hidden),
      stax.FanOut(3 if hps.has_flow else 2),
      stax.parallel(
        stax.Dense(hps.latent_size), # mean
        stax.Dense(hps.latent_size), # log var
        # flow info layer
        *([ stax.Dense(hps.latent_size), stax.Elu ] if hps.has_flow else [])
      ),
    )
    self.decoder_init, self.decoder = stax.serial(
      *make_mlp(hps.decoder_hidden),
      stax.Dense(hps.image_size)
    )
    self.init_flow, self.run_flow = build_aux_flow(hps)
    self.hps = hps
  
  def init_params(self, rng):
    encoder_rng, decoder_rng, flow_rng = random.split(rng, num=3)

    encoder_input_shape = (self.hps.image_size,)
    decoder_input_shape = (self.hps.latent_size,)

    _, encoder_params = self.encoder_init(encoder_rng, input_shape=encoder_input_shape)
    _, decoder_params = self.decoder_init(decoder_rng, input_shape=decoder_input_shape)

    if self.hps.has_flow:
      flow_params = self.init_flow(flow_rng)
      params = (encoder_params, decoder_params, flow_params)
    else:
      params = (encoder_params, decoder_params)

    return params
  
  @partial(jit, static_argnums=(0,))
  def run(self, params, x, rng, beta=1.):
    encoder_params = params[0]
    decoder_params = params[1]

    eps_rng, run_flow_rng = random.split(rng, num=2)

    if self.hps.has_flow:
      mu, logvar, flow_info = self.encoder(encoder_params, x)
    else:
      mu, logvar = self.encoder(encoder_params, x)

    eps = random.normal(eps_rng, mu.shape)
    z = mu + eps * jnp.exp(0.5 * logvar)

    logqz = log_normal(z, mu, logvar)  # log q(z|x)

    # Normalizing flow
    if self.hps.has_flow:
      flow_params = params[2]
      z, logprob = self.run_flow(run_flow_rng, z, flow_info, flow_params)
      logqz += logprob

    logpz = log_normal(z)  # log p(z)
    # kld = gaussian_kld(mu, logvar)
    kld = logqz - logpz

    logit = self.decoder(decoder_params, z)
    likelihood = log_bernoulli(logit, x)  # log p(x|z)

    elbo = likelihood - beta * kld
    return elbo, logit, likelihood, kld


@dataclass
class TrainHyperParams:
  num_epochs: int = 5000
  display_epoch: int = 10

  # num ELBO samples for final evaluation
  eval_elbos: int = 1000

  # always save final params to save_dir/params_{time}.pkl
  # optionally save params every `save_epoch` epochs if positive
  save_epoch: int = -1
  save_dir: str = "."

  init_seed: int = 0

  kl_annealing: bool = False
  kl_threshold: int = 500

  # schedule in terms of epoch, default to:
  # exponential decay 1e-3 to 1e-4 over 3000 epochs
  lr_schedule: Callable = lambda epoch: jnp.maximum(1e-3 * 0.1 ** (epoch // 3000), 1e-4)

  early_stopping: bool = False
  patience: int = 10
  es_epsilon: float = 0.05

def dataset_elbo(model, num_samples, dataset, rng, params):
  """ Compute mean and estimated std. dev. (of mean) of computing the dataset ELBO `num_sample` times. """

  def batch_elbo(images, rng):
    rngs = random.split(rng, images.shape[0])
    elbos, _, _, _ = jax.vmap(model.run, in_axes=(None, 0, 0))(params, images, rngs)
    return jnp.mean(elbos)
  
  @jit  # expect: JIT301
  def full_elbo(rng):
    rngs = random.split(rng, dataset.shape[0])
    elbos = jax.vmap(batch_elbo)(dataset, rngs)
    return jnp.mean(elbos)
  
  rngs = random.split(rng, num_samples)
  elbos = []
  for i in trange(num_samples):
    elbo = full_elbo(rngs[i])
    elbos.append(elbo)
  elbos = jnp.array(elbos)

  elbo_var = jnp.var(elbos)
  mean_stddev = (elbo_var / num_samples) ** 0.5

  return jnp.mean(elbos), mean_stddev

def train_vae(hps: TrainHyperParams, model: VAE, train_batches, test_batches):
  
  num_train_batches = train_batches.shape[0]
  batch_size = train_batches.shape[1]

  kl_annealing = hps.kl_annealing
  kl_threshold = hps.kl_threshold
  save_epoch = hps.save_epoch
  save_dir = hps.save_dir
  early_stopping = hps.early_stopping
  es_epsilon = hps.es_epsilon
  patience = hps.patience
  num_epochs = hps.num_epochs
  display_epoch = hps.display_epoch
  
  # lr_schedule in terms of batch index
  lr_schedule = lambda i: hps.lr_schedule(i // num_train_batches)
  
  opt_init, opt_update, get_params = optimizers.adam(step_size=lr_schedule, eps=1e-4)

  def batch_loss_fn(rng, params, images, beta):
    rngs = random.split(rng, batch_size)
    elbos, _, _, _ = jax.vmap(model.run, in_axes=(None, 0, 0, None))(params, images, rngs, beta)
    return -jnp.mean(elbos)

  @jit
  def run_epoch(epoch, rng, opt_state):
    beta = jnp.minimum(epoch / kl_threshold, 1.) if kl_annealing else 1.

    def body_fn(opt_state, args):
      idx, rng, batch = args
      loss, g = jax.value_and_grad(batch_loss_fn, argnums=1)(rng, get_params(opt_state), batch, beta)
      return opt_update(idx, g, opt_state), loss

    idxs = epoch * num_train_batches + jnp.arange(num_train_batches)
    rngs = random.split(rng, num_train_batches)
    scan_args = (idxs, rngs, train_batches)

    opt_state, losses = jax.lax.scan(body_fn, opt_state, scan_args)
    elbo = -jnp.mean(losses)

    return opt_state, elbo

  train_elbos = []
  test_elbos = []

  init_rng = random.PRNGKey(hps.init_seed)
  init_params = model.init_params(init_rng)
  opt_state = opt_init(init_params)

  num_worse = 0
  best_test_elbo = -1e20

  with trange(1, num_epochs+1) as t:
    for epoch in t:
      epoch_rng = random.PRNGKey(epoch)
      opt_state, train_elbo = run_epoch(epoch-1, epoch_rng, opt_state)
      train_elbos.append((epoch, float(train_elbo)))
      t.set_postfix(train_elbo=train_elbo)

      if save_epoch > 0 and epoch % save_epoch == 0:
        file_name = "{}/{:05d}.pkl".format(save_dir, epoch)
        utils.save_params(file_name, get_params(opt_state))

      if epoch % display_epoch == 0:
        test_elbo, _ = dataset_elbo(model, 10, test_batches, epoch_rng, get_params(opt_state))  # expect: JIT502
        print("Epoch {} - Train {}, Test {}".format(epoch, train_elbo, test_elbo))

        test_elbo = float(test_elbo)
        test_elbos.append((epoch, test_elbo))
        
        if early_stopping and (not kl_annealing or epoch >= kl_threshold):
          if best_test_elbo > test_elbo + es_epsilon:
            num_worse += 1
            if num_worse >= patience:
              print("Early stopping at Epoch", epoch)
              break
          else:
            best_test_elbo = test_elbo
            num_worse = 0
  
  params = get_params(opt_state)
  file_name = "{}/params.pkl".format(save_dir)
  utils.save_params(file_name, params)
  print("Saved final params to", file_name)

  utils.save_params(save_dir + "/train_elbos.pkl", train_elbos)
  utils.save_params(save_dir + "/test_elbos.pkl", test_elbos)
  
  return params, train_elbos, test_elbos


if __name__ == "__main__":
  import logging
  import tempfile

  compiles = []

  class _Count(logging.Handler):
    def emit(self, record):
      msg = record.getMessage()
      if "full_elbo" in msg and msg.startswith("Finished XLA compilation"):
        compiles.append(msg)

  jax.config.update("jax_log_compiles", True)
  logging.getLogger("jax").addHandler(_Count())
  logging.getLogger("jax").setLevel(logging.WARNING)

  seen = []
  _dataset_elbo = dataset_elbo

  def dataset_elbo(model, num_samples, dataset, rng, params):
    seen.append(rng)
    return _dataset_elbo(model, num_samples, dataset, rng, params)

  model = VAE(HyperParams(image_size=16, latent_size=4, encoder_hidden=(8,), decoder_hidden=(8,)))
  data = (random.uniform(random.PRNGKey(123), (5, 4, 16)) > 0.5).astype(jnp.float32)
  train_batches, test_batches = data[:3], data[3:]
  with tempfile.TemporaryDirectory() as d:
    hps = TrainHyperParams(num_epochs=3, display_epoch=1, save_dir=d)
    train_vae(hps, model, train_batches, test_batches)

  print("full_elbo compiled", len(compiles), "times")
  assert len(compiles) == 3, compiles
  # observed: line 178 full_elbo is re-jitted and recompiled on each of the 3 dataset_elbo calls
  for epoch, rng in enumerate(seen, start=1):
    assert bool(jnp.all(rng == random.PRNGKey(epoch)))  # the key run_epoch got this epoch
    first_train_key = random.split(rng, train_batches.shape[0])[0]  # tolerate: JIT502
    first_elbo_key = random.split(rng, 10)[0]  # tolerate: JIT502
    assert bool(jnp.all(first_train_key == first_elbo_key))
  print("test ELBO sample 0 uses the key of training batch 0 in every displayed epoch")
  # observed: line 261 dataset_elbo gets the epoch_rng run_epoch already consumed; first ELBO-sample key == first training-batch key
