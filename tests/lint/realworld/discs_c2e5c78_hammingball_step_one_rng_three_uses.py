# source: https://github.com/google-research/discs/blob/c2e5c789e0fe33ae139513268c12d4bf6c621e09/discs/samplers/hammingball.py (with discs/samplers/blockgibbs.py, discs/samplers/abstractsampler.py and discs/common/math_util.py at the same commit; 7ca2f7f "hamming ball testing" splits `rng` into rng1, rng2, rng3 for the three uses)
# observed on jax 0.10.2 CPU: HammingBallSampler.step draws the Hamming radius with jax.random.categorical(rng), hands the same rng to compute_u, which splits it into the Bernoulli and randint keys, and hands it again to the block Gibbs step, whose fori_loop splits it into the first site's categorical key and the next key: split(rng) twice, so the first Gibbs site is chosen with the very key that drew which coordinates to flip, and the second with the key that drew the flip values; with a typed key and jax_debug_key_reuse on, JAX raises KeyReuseError in the jitted, vmapped step (as discs/experiment/sampling.py compiles it) The __main__ block's eager step splits k_step again (line 221, tolerated: the harness's; JAX's key-reuse checker names it, through the recording wrapper).
# gap: other
# added: the modules merged into one file (only what step uses of math_util: comb, prod); ml_collections.ConfigDict (not installed) replaced by nested types.SimpleNamespace; a stand-in binary model (dmcx's Bernouli energy, as the project's first model); the unused pdb imports dropped; the __main__ block, which jits jax.vmap(functools.partial(sampler.step, model=model)) as sampling.py does, and records the keys each jax.random call receives in one eager step
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


class BlockGibbsSampler(AbstractSampler):
  """Gibbs Sampler Class."""

  def __init__(self, config):
    self.sample_shape = config.model.shape
    self.num_categories = config.model.num_categories
    self.block_size = config.sampler.block_size

  def make_init_state(self, rng):
    """Init sampler state."""
    state = super().make_init_state(rng)
    state['index'] = jnp.zeros(shape=(), dtype=jnp.int32)
    return state

  def update_sampler_state(self, sampler_state):
    sampler_state = super().update_sampler_state(sampler_state)
    dim = math.prod(self.sample_shape)
    sampler_state['index'] = (sampler_state['index'] + self.block_size) % dim
    sampler_state['num_ll_calls'] += (self.num_categories**self.block_size)
    return sampler_state

  def step(self, model, rng, x, model_param, state, x_mask=None):
    _ = x_mask

    def generate_new_samples(indices_to_flip, x):
      x_flatten = x.reshape(1, -1)
      y_flatten = jnp.repeat(
          x_flatten, self.num_categories**self.block_size, axis=0
      )
      categories_iter = jnp.array(
          list(product(range(self.num_categories), repeat=self.block_size))
      )
      y_flatten = y_flatten.at[:, indices_to_flip].set(categories_iter)
      y = y_flatten.reshape((y_flatten.shape[0],) + self.sample_shape)
      return y

    def select_new_samples(model_param, x, y, rnd_categorical):
      loglikelihood = model.forward(model_param, y)
      selected_index = random.categorical(rnd_categorical, loglikelihood)
      x = jnp.take(y, selected_index, axis=0)
      x = x.reshape(self.sample_shape)
      return x

    def loop_body(i, val):
      rng_key, x, indices_to_flip, model_param = val
      curr_sample = x[i]
      y = generate_new_samples(indices_to_flip, curr_sample)
      rnd_categorical, next_key = jax.random.split(rng_key)
      selected_sample = select_new_samples(
          model_param, curr_sample, y, rnd_categorical
      )
      x = x.at[i].set(selected_sample)
      return (next_key, x, indices_to_flip, model_param)

    start_index = state['index']
    indices_to_flip = jnp.arange(self.block_size) + start_index
    init_val = (rng, x, indices_to_flip, model_param)
    _, new_x, _, _ = jax.lax.fori_loop(0, x.shape[0], loop_body, init_val)
    new_state = self.update_sampler_state(state)
    return new_x, new_state, 1


class HammingBallSampler(AbstractSampler):
  """Random Walk Sampler Base Class."""

  def __init__(self, config):
    self.sample_shape = config.model.shape
    self.num_categories = config.model.num_categories
    self.hamming = config.sampler.hamming
    self.block_size = config.sampler.block_size
    config_bg = copy.deepcopy(config)
    config_bg.sampler.block_size = self.hamming
    self.blockgibbs = BlockGibbsSampler(config_bg)
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
    sampler_state['num_ll_calls'] += (self.num_categories**self.block_size)
    return sampler_state

  def make_init_state(self, rng):
    return self.blockgibbs.make_init_state(rng)

  def compute_u(self, rng, rad, x, block):
    rng_ber, rng_int = random.split(rng)  # tolerate: JIT502
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
    state_init = copy.deepcopy(state)
    _ = x_mask
    x_shape = x.shape
    x = x.reshape(x.shape[0], -1)
    rad = jax.random.categorical(rng, self.hamming_logit)
    start_index = state['index']
    block = start_index + jnp.arange(self.block_size)
    u = jnp.where(rad, self.compute_u(rng, rad, x, block), x)  # expect: JIT502
    u = jnp.reshape(u, x_shape)
    new_x, _, acc = self.blockgibbs.step(model, rng, u, model_param, state)  # expect: JIT502
    new_state = self.update_sampler_state(state_init)
    return new_x, new_state, acc


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

  # the project's way: vmap over models, jit, one fresh key per step
  params = jax.vmap(model.make_init_params)(k_param[None])
  x = jax.random.randint(k_x, (1, 4, 8), 0, 2)
  state = jax.vmap(sampler.make_init_state)(k_state[None])
  step_fn = jax.jit(jax.vmap(functools.partial(sampler.step, model=model)))
  for k in jax.random.split(k_step, 3):
    x, state, _ = step_fn(rng=k[None], x=x, model_param=params, state=state)
  print("jitted chain ran:", x.shape, state['steps'])

  # one eager step, recording the key every jax.random call receives
  calls = []
  def recording(name, fn):
    def wrapped(key, *a, **kw):
      calls.append((name, tuple(jax.random.key_data(key).tolist())
                    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
                    else tuple(key.tolist())))
      return fn(key, *a, **kw)
    return wrapped
  originals = {n: getattr(jax.random, n)
               for n in ("split", "categorical", "bernoulli", "randint")}
  for n, f in originals.items():
    setattr(jax.random, n, recording(n, f))
  rng = jax.random.split(k_step, 5)[4]  # tolerate: JIT502
  rng_t = tuple(rng.tolist())
  with jax.disable_jit():
    while True:
      calls.clear()
      sampler.step(model, rng, x[0], params[0], jax.tree_util.tree_map(lambda s: s[0], state))
      if any(n == "bernoulli" for n, _ in calls):  # rad == 1: compute_u flips
        break
      rng = originals["split"](rng)[0]
      rng_t = tuple(rng.tolist())
  for n, f in originals.items():
    setattr(jax.random, n, f)
  users_of_rng = [n for n, k in calls if k == rng_t]
  print("calls given rng itself:", users_of_rng)
  assert users_of_rng == ["categorical", "split", "split"], users_of_rng
  ber_key = [k for n, k in calls if n == "bernoulli"][0]
  int_key = [k for n, k in calls if n == "randint"][0]
  gibbs_cat_keys = [k for n, k in calls if n == "categorical"][1:]
  assert gibbs_cat_keys[0] == ber_key
  print("line 171: compute_u splits the rng that categorical drew the radius from")
  print("line 173: the first Gibbs site's categorical key == compute_u's Bernoulli key:",
        gibbs_cat_keys[0] == ber_key)
  # the fori_loop's next key is compute_u's randint key: it is split again for site 2
  split_inputs = [k for n, k in calls if n == "split"]
  assert int_key in split_inputs
  print("line 173: the second Gibbs site splits compute_u's randint key:", int_key in split_inputs)
# observed: line 171 jax.random.categorical draws the radius from rng and compute_u then splits the same rng (the eager step's record shows rng handed to categorical and to compute_u's split)
# observed: line 173 the block Gibbs step splits rng again: its first site's categorical key equals compute_u's Bernoulli key, and its second site splits compute_u's randint key
