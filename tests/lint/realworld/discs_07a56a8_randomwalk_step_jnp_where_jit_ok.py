# source: https://github.com/google-research/discs/blob/07a56a88945ff55d20f19a797cbab5be70e80d39/dmcx/sampler/randomwalk.py (commit "jit working on sampler step function", with dmcx/model/bernouli.py, dmcx/sampler/abstractsampler.py and dmcx/main/main.py at the same commit: the fix of the traced `if` in get_num_flips, which is now a jnp.where, and of min/max in update_state)
# observed on jax 0.10.2 CPU: `jax.jit(sampler.step, static_argnums=0)` (as main.py) runs the adaptive and the non-adaptive random walk for 10 steps; the chain stays binary, the adaptive flip count stays within [1, dimension], and the step compiles twice per sampler (the int32 initial state, then the float32 state it returns), not once per step
# gap: omnistaging
# added: the modules merged into one file; ml_collections.ConfigDict (not installed) replaced by types.SimpleNamespace; the __main__ block, which jits `step` as main.py does and hands every step its own key from one split (main.py's loop itself is not copied) and counts traces
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
  def step(self, model, rnd, x, model_param, state):
    pass

  @abc.abstractmethod
  def make_init_state(self, rnd):
    pass


class RandomWalkSampler(AbstractSampler):
  """Random Walk Sampler Class."""

  def __init__(self, config):
    self.adaptive = config.adaptive
    self.target_accept_ratio = config.target_accept_ratio
    self.sample_dimension = config.sample_dimension

  def make_init_state(self, rnd):
    return random.randint(
        rnd,
        shape=(1, 1),
        minval=0,
        maxval=self.sample_dimension,
        dtype=jnp.int32).at[0, 0].get()

  def step(self, model, rnd, x, model_param, state):

    def get_num_flips(rnd_uniform, expected_flips):
      return jnp.where(
          random.uniform(rnd_uniform, minval=0.0, maxval=1.0) <
          expected_flips - jnp.floor(expected_flips),
          jnp.floor(expected_flips).astype(int),
          jnp.ceil(expected_flips).astype(int))

    def get_new_sample(rnd_new_sample, x, num_flips):
      """Get new sample.

      Args:
        rnd_new_sample: key for permutation.
        x: current sample.
        num_flips: number of indices to flip.

      Returns:
        New sample.
      """
      flipped = random.bernoulli(
          rnd_new_sample,
          p=(num_flips / x.shape[-1]),
          shape=[x.shape[0], x.shape[-1]])
      return jnp.where(flipped, 1 - x, x)

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
      return jnp.minimum(
          jnp.maximum(
              1, expected_flips +
              (jnp.mean(clipped_accept_ratio) - self.target_accept_ratio)),
          x.shape[-1])

    rnd_uniform, rnd_new_sample, rnd_acceptance = random.split(rnd, num=3)
    del rnd
    num_flips = jnp.where(self.adaptive, get_num_flips(rnd_uniform, state),
                          jnp.floor(state).astype(int))
    y = get_new_sample(rnd_new_sample, x, num_flips)
    accept_ratio = get_accept_ratio(model_param, x, y)
    accepted = is_accepted(rnd_acceptance, accept_ratio)
    new_x = accepted * y + (1 - accepted) * x
    new_state = jnp.where(self.adaptive, update_state(accept_ratio, state, x),
                          state)
    return new_x, new_state


if __name__ == "__main__":
  config_model = types.SimpleNamespace(dimension=10, init_sigma=1.0)
  model = Bernouli(config_model)
  for adaptive in (False, True):
    config_sampler = types.SimpleNamespace(
        adaptive=adaptive, target_accept_ratio=0.234, sample_dimension=10)
    sampler = RandomWalkSampler(config_sampler)
    rng_param, rng_x0, rng_sampler, rng_steps = jax.random.split(
        jax.random.PRNGKey(0), num=4)
    params = model.make_init_params(rng_param)
    x = model.get_init_samples(rng_x0, 100)
    state = sampler.make_init_state(rng_sampler)
    step_jit = jax.jit(sampler.step, static_argnums=0)
    chain = [x]
    for k in jax.random.split(rng_steps, 10):
      x, state = step_jit(model, k, x, params, state)
      chain.append(x)
      assert 1 <= float(state) <= 10, state
    chain = jnp.swapaxes(jnp.array(chain), axis1=0, axis2=1)
    assert chain.shape == (100, 11, 10)
    assert bool(jnp.all((chain == 0) | (chain == 1)))
    n = step_jit._cache_size()
    assert n <= 2, n
    print("adaptive", adaptive, "chain", chain.shape, "state", float(state),
          "traces", n)
