# source: https://github.com/google/flax/blob/3e789b71dd67ebf054b20b50fcadb52a5548d9ac/docs/guides/flax_fundamentals/flax_basics.md
#   (section "Managing state": `BiasAdderWithRunningMean` and the `update_step` cell; the
#   guide's imports added)
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8 runs clean, although the
#   guide says the function "would not actually work with `jax.jit()`": `tx` (an optax
#   NamedTuple of functions) and `model.apply` (a bound method of an unbound, hashable linen
#   Module; each access is a new object that compares and hashes equal) are static, the
#   `is_initialized` test is a Python bool from `has_variable`. The loop compiles twice and
#   then no more: the running mean starts with shape (5,) and the first step returns it with
#   shape (1, 5) (`keepdims=True`), a new input shape; later steps reuse that program.
# gap: static-hashability
from functools import partial

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from jax import random


class BiasAdderWithRunningMean(nn.Module):
  decay: float = 0.99

  @nn.compact
  def __call__(self, x):
    # easy pattern to detect if we're initializing via empty variable tree
    is_initialized = self.has_variable('batch_stats', 'mean')
    ra_mean = self.variable('batch_stats', 'mean',
                            lambda s: jnp.zeros(s),
                            x.shape[1:])
    bias = self.param('bias', lambda rng, shape: jnp.zeros(shape), x.shape[1:])
    if is_initialized:
      ra_mean.value = self.decay * ra_mean.value + (1.0 - self.decay) * jnp.mean(x, axis=0, keepdims=True)

    return x - ra_mean.value + bias


model = BiasAdderWithRunningMean()

@partial(jax.jit, static_argnums=(0, 1))
def update_step(tx, apply_fn, x, opt_state, params, state):

  def loss(params):
    y, updated_state = apply_fn({'params': params, **state},
                                x, mutable=list(state.keys()))
    l = ((x - y) ** 2).sum()
    return l, updated_state

  (l, state), grads = jax.value_and_grad(loss, has_aux=True)(params)
  updates, opt_state = tx.update(grads, opt_state)
  params = optax.apply_updates(params, updates)
  return opt_state, params, state

x = jnp.ones((10,5))
variables = model.init(random.key(0), x)
state, params = flax.core.pop(variables, 'params')
del variables
tx = optax.sgd(learning_rate=0.02)
opt_state = tx.init(params)

for _ in range(3):
  opt_state, params, state = update_step(tx, model.apply, x, opt_state, params, state)
  print('Updated state: ', state)


if __name__ == "__main__":
  assert update_step._cache_size() == 2
  before = state['batch_stats']['mean']
  opt_state, params, state = update_step(tx, model.apply, 2.0 * x, opt_state, params, state)
  assert update_step._cache_size() == 2
  assert not jnp.allclose(before, state['batch_stats']['mean'])
