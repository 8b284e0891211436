# source: https://github.com/google-research/discs/blob/5236af3f6c16a6274679f0f77fad1a5703addc35/dmcx/sampler/randomwalk.py (with dmcx/model/bernouli.py and dmcx/sampler/abstractsampler.py at the same commit; the next commit, f8294ed "updated RW to support jit", replaces the `if` by `jnp.where` and `min(max(...))` by `jnp.minimum(jnp.maximum(...))`)
# observed on jax 0.10.2 CPU: jitting the sampler's `step` (as the project's main.py later does, `jax.jit(sampler.step, static_argnums=...)` with the model static) raises TracerBoolConversionError at the `if` of get_num_flips: the uniform draw from the traced key is a tracer The min(max([...])) of lines 102-103 compares a traced value in Python builtins (JIT401's conversion; tolerated with JIT101, hidden by the raise at line 60).
# gap: omnistaging
# added: the modules merged into one file; ml_collections.ConfigDict (not installed) replaced by types.SimpleNamespace; the __main__ block, which jits `step` with the model static as the project's later main.py does, and calls it once
import abc
import types

import jax
from jax import random
import jax.numpy as jnp


class AbstractModel(abc.ABC):
  """Base Model Class."""


class Bernouli(AbstractModel):
  """Bernouli Distribution."""

  def __init__(self, config):
    self.dimension = config.dimension
    self.init_sigma = config.init_sigma

  def make_init_params(self, rnd):
    params = jax.random.normal(rnd, shape=(self.dimension,)) * self.init_sigma
    return params

  def get_init_samples(self, rnd, num_samples: int):
    x0 = jax.random.randint(rnd, shape=(num_samples, self.dimension),
                            minval=0, maxval=2, dtype=jnp.int32)
    return x0

  def forward(self, params, x):
    params = jnp.reshape(params, (1, -1))
    energy = jnp.sum(x * params, axis=-1)
    return energy


class AbstractSampler(abc.ABC):
  """Base Sampler Class."""

  def __init__(self, config):
    pass

  @abc.abstractmethod
  def step(self, rnd, x, model, model_param, state):
    pass


class RandomWalkSampler(AbstractSampler):
  """Random Walk Sampler Class."""

  def __init__(self, config):
    self.adaptive = config.adaptive
    self.target_accept_ratio = config.target_accept_ratio

  def step(self, rnd, x, model, model_param, state):

    def get_num_flips(rnd_uniform, expected_flips):
      if random.uniform(  # expect: JIT101
          rnd_uniform, minval=0.0,
          maxval=1.0) < expected_flips - jnp.floor(expected_flips):
        num_flips = int(jnp.floor(expected_flips))  # tolerate: JIT401
      else:
        num_flips = int(jnp.ceil(expected_flips))  # tolerate: JIT401
      return num_flips

    def get_new_sample(rnd_new_sample, x, num_flips):
      """Get new sample.

      Args:
        rnd_new_sample: key for permutation.
        x: current sample.
        num_flips: number of indices to flip.

      Returns:
        New sample.
      """

      index_axis0 = jnp.repeat(jnp.arange(x.shape[0]), num_flips)
      aranged_index_batch = jnp.tile(jnp.arange(x.shape[-1]), [x.shape[0], 1])
      index_axis1 = random.permutation(
          rnd_new_sample, aranged_index_batch, axis=-1,
          independent=True)[:, 0:num_flips].reshape(1, -1)
      zeros = jnp.zeros(x.shape)
      flipped = zeros.at[index_axis0, index_axis1].set(1)
      return jnp.where(x + flipped == 2, 0, x + flipped)

    def get_accept_ratio(model_param, x, y):
      e_x = model.forward(model_param, x)
      e_y = model.forward(model_param, y)
      return jnp.exp(-e_y + e_x)

    def is_accepted(rnd_acceptance, accept_ratio):
      random_uniform_val = random.uniform(
          rnd_acceptance, shape=accept_ratio.shape, minval=0.0, maxval=1.0)
      return jnp.expand_dims(
          jnp.where(accept_ratio >= random_uniform_val, 1, 0), axis=-1)

    def update_state(accept_ratio, expected_flips, x):
      clipped_accept_ratio = jnp.clip(accept_ratio, 0.0, 1.0)
      return min(  # tolerate: JIT101,JIT401
          max([  # tolerate: JIT401
              1, expected_flips +
              (jnp.mean(clipped_accept_ratio) - self.target_accept_ratio)
          ]), x.shape[-1])

    rnd_uniform, rnd_new_sample, rnd_acceptance = random.split(rnd, num=3)
    del rnd
    num_flips = get_num_flips(rnd_uniform, state)

    if x.shape[-1] < num_flips:
      raise Exception(
          "Determined state should be smaller than dimension of the samples."
      )

    y = get_new_sample(rnd_new_sample, x, num_flips)
    accept_ratio = get_accept_ratio(model_param, x, y)
    accepted = is_accepted(rnd_acceptance, accept_ratio)
    new_x = accepted * y + (1 - accepted) * x
    new_state = state
    if self.adaptive:
      new_state = update_state(accept_ratio, state, x)

    return new_x, new_state


if __name__ == "__main__":
  config_model = types.SimpleNamespace(dimension=10, init_sigma=1.0)
  config_sampler = types.SimpleNamespace(adaptive=True, target_accept_ratio=0.234)
  model = Bernouli(config_model)
  sampler = RandomWalkSampler(config_sampler)
  rng_param, rng_x0, rng_sampler = jax.random.split(jax.random.PRNGKey(0), num=3)
  params = model.make_init_params(rng_param)
  x0 = model.get_init_samples(rng_x0, 5)
  step_jit = jax.jit(sampler.step, static_argnums=2)
  new_x, new_state = step_jit(rng_sampler, x0, model, params, 3.5)
  print(new_x.shape, new_state)
