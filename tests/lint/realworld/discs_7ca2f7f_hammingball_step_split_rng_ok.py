# source: https://github.com/google-research/discs/blob/7ca2f7f7aaa0f868c63cea88a041978a9182920c/discs/samplers/hammingball.py (commit "hamming ball testing": step splits rng into rng1, rng2, rng3 for the radius, compute_u and the Gibbs loop; with discs/samplers/abstractsampler.py and discs/common/math_util.py at the same commit)
# observed on jax 0.10.2 CPU: jax.jit(jax.vmap(functools.partial(sampler.step, model=model))) (as discs/experiment/sampling.py) runs three steps with one fresh key each and compiles once; the chain stays binary, and with a typed key and jax_debug_key_reuse on no KeyReuseError is raised
# gap: other
# added: the modules merged into one file (only what step uses of math_util: comb, prod); ml_collections.ConfigDict (not installed) replaced by nested types.SimpleNamespace; a stand-in binary model (dmcx's Bernouli energy, as the project's first model); the unused pdb import dropped; `abstractsampler.AbstractSampler` and `ml_collections.ConfigDict` annotations read as the merged names; the __main__ block
import abc
import copy
import functools
import math as pymath
import types
from itertools import product

import jax
from jax import random
import jax.numpy as jnp


class math:
  # discs/common/math_util.py (the two functions used here)
  @staticmethod
  def comb(x, y):
    return int(pymath.factorial(x) / (pymath.factorial(y) * pymath.factorial(x - y)))

  @staticmethod
  def prod(it):
    base = 1
    for v in it:
      base *= v
    return base


class AbstractSampler(abc.ABC):
  """Base Sampler Class."""

  def __init__(self, config):
    pass

  @abc.abstractmethod
  def step(self, model, rng, x, model_param, state, x_mask=None):
    pass

  def make_init_state(self, rng):
    """Init sampler state."""
    _ = rng
    return {'num_ll_calls': jnp.zeros(shape=(), dtype=jnp.int32),
            'steps': jnp.zeros(shape=(), dtype=jnp.int32)}

  def update_sampler_state(self, sampler_state):
    sampler_state['steps'] += 1
    return sampler_state


class HammingBallSampler(AbstractSampler):
  """Random Walk Sampler Base Class."""

  def __init__(self, config):
    self.sample_shape = config.model.shape
    self.num_categories = config.model.num_categories
    self.hamming = config.sampler.hamming
    self.block_size = config.sampler.block_size
    assert self.hamming <= self.block_size
    self.hamming_logit = [1.0]
    if self.num_categories == 2:
      num_samples_per_hamming = [
          math.comb(self.block_size, j + 1) for j in range(self.hamming)
      ]
    else:
      num_samples_per_hamming = [
          math.comb(self.block_size, j + 1)
          * (self.num_categories - 1) ** (j + 1)
          for j in range(self.hamming)
      ]
    self.hamming_logit = jnp.array(self.hamming_logit + num_samples_per_hamming)

  def update_sampler_state(self, sampler_state):
    sampler_state = super().update_sampler_state(sampler_state)
    dim = math.prod(self.sample_shape)
    sampler_state['index'] = (sampler_state['index'] + self.block_size) % dim
    sampler_state['num_ll_calls'] += self.num_categories**self.hamming
    return sampler_state

  def make_init_state(self, rng):
    state = super().make_init_state(rng)
    state['index'] = jnp.zeros(shape=(), dtype=jnp.int32)
    return state

  def compute_u(self, rng, rad, x, block):
    rng_ber, rng_int = random.split(rng)
    indices_to_flip = random.bernoulli(
        rng_ber, p=(rad / self.block_size), shape=[x.shape[0], self.block_size]
    )
    flipping_value = indices_to_flip * random.randint(
        rng_int,
        shape=[x.shape[0], self.block_size],
        minval=1,
        maxval=self.num_categories,
    )
    u = x.at[:, block].set((x[:, block] + flipping_value) % self.num_categories)
    return u

  def step(self, model, rng, x, model_param, state, x_mask=None):
    rng1, rng2, rng3 = jax.random.split(rng, 3)
    state_init = copy.deepcopy(state)
    _ = x_mask
    x_shape = x.shape
    x = x.reshape(x.shape[0], -1)
    rad = jax.random.categorical(rng1, self.hamming_logit)
    start_index = state['index']
    block = start_index + jnp.arange(self.block_size)
    u = jnp.where(rad, self.compute_u(rng2, rad, x, block), x)
    u = jnp.reshape(u, x_shape)

    def generate_new_samples(indices_to_flip, x):
      x_flatten = x.reshape(1, -1)
      y_flatten = jnp.repeat(
          x_flatten, self.num_categories**self.block_size, axis=0
      )
      categories_iter = jnp.array(
          list(product(range(self.num_categories), repeat=self.block_size))
      )
      y_flatten = y_flatten.at[:, indices_to_flip].set(categories_iter)
      mask = jnp.where(
          jnp.sum(y_flatten != x_flatten, axis=-1) <= self.hamming, 1, 0
      )
      y = y_flatten.reshape((y_flatten.shape[0],) + self.sample_shape)
      return y, mask

    def select_new_samples(mask, model_param, x, y, rnd_categorical):
      loglikelihood = model.forward(model_param, y)
      loglikelihood += (1 - mask) * (-1e10)
      selected_index = random.categorical(rnd_categorical, loglikelihood)
      x = jnp.take(y, selected_index, axis=0)
      x = x.reshape(self.sample_shape)
      return x

    def loop_body(i, val):
      rng_key, x, indices_to_flip, model_param = val
      curr_sample = x[i]
      y, mask = generate_new_samples(indices_to_flip, curr_sample)
      rnd_categorical, next_key = jax.random.split(rng_key)
      selected_sample = select_new_samples(
          mask, model_param, curr_sample, y, rnd_categorical
      )
      x = x.at[i].set(selected_sample)
      return (next_key, x, indices_to_flip, model_param)

    init_val = (rng3, u, block, model_param)
    _, new_x, _, _ = jax.lax.fori_loop(0, x.shape[0], loop_body, init_val)
    new_state = self.update_sampler_state(state_init)
    return new_x, new_state, 1


class BinaryModel:
  # stand-in model: dmcx's Bernouli energy
  def __init__(self, dim):
    self.dim = dim

  def make_init_params(self, rng):
    return jax.random.normal(rng, shape=(self.dim,))

  def forward(self, params, x):
    params = jnp.reshape(params, (1, -1))
    return jnp.sum(x * params, axis=-1)


if __name__ == "__main__":
  config = types.SimpleNamespace(
      model=types.SimpleNamespace(shape=(8,), num_categories=2),
      sampler=types.SimpleNamespace(hamming=1, block_size=3))
  sampler = HammingBallSampler(config)
  model = BinaryModel(8)
  k_param, k_x, k_state, k_step = jax.random.split(jax.random.PRNGKey(0), 4)
  params = jax.vmap(model.make_init_params)(k_param[None])
  x = jax.random.randint(k_x, (1, 4, 8), 0, 2)
  state = jax.vmap(sampler.make_init_state)(k_state[None])
  step_fn = jax.jit(jax.vmap(functools.partial(sampler.step, model=model)))
  for k in jax.random.split(k_step, 3):
    x, state, _ = step_fn(rng=k[None], x=x, model_param=params, state=state)
  assert bool(jnp.all((x == 0) | (x == 1)))
  assert int(state['steps'][0]) == 3, state
  assert step_fn._cache_size() == 1
  print("jitted chain ran:", x.shape, state['steps'], state['index'])
