# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/transforms/_adding.py
#   (AddNoiseState and add_noise, optax 0.2.8 as released; docstring shortened; imports of
#   optax's internal `base`, `numerics` and `utils` modules added)
# observed on jax 0.10.2 CPU: runs clean with `update` under jit for several steps: each step
#   splits the key held in the state and returns the new one, so successive noises differ.
# gap: other
from typing import NamedTuple
import warnings

import jax
import jax.numpy as jnp
import optax
from optax._src import base
from optax._src import numerics
from optax._src import utils


class AddNoiseState(NamedTuple):
  """State for adding gradient noise. Contains a count for annealing."""

  count: jax.Array
  rng_key: jax.Array


def add_noise(
    eta: jax.typing.ArrayLike,
    gamma: jax.typing.ArrayLike,
    key: jax.Array | int | None = None,
    *,
    seed: int | None = None,  # deprecated
) -> base.GradientTransformation:
  """Add gradient noise."""

  if seed is not None:
    warnings.warn(
        '"seed" is deprecated and will be removed in optax 0.2.7, use "key".',
        DeprecationWarning,
    )
    if key is not None:
      raise ValueError('Only one of seed or key can be specified.')
    key = seed
  if key is None:
    warnings.warn('Specifying a key will be required in optax 0.2.7.')
    key = 0

  def init_fn(params):
    del params
    return AddNoiseState(
        count=jnp.zeros([], jnp.int32), rng_key=utils.canonicalize_key(key)
    )

  def update_fn(updates, state, params=None):
    del params
    count_inc = numerics.safe_increment(state.count)
    standard_deviation = jnp.sqrt(eta / count_inc**gamma)

    rng_key, sample_key = jax.random.split(state.rng_key)
    noise = optax.tree.random_like(
        sample_key, target_tree=updates, sampler=jax.random.normal
    )
    updates = optax.tree.add_scale(
        tree_x=updates, scalar=standard_deviation, tree_y=noise
    )
    return updates, AddNoiseState(count=count_inc, rng_key=rng_key)

  return base.GradientTransformation(init_fn, update_fn)


if __name__ == "__main__":
    noise = add_noise(eta=0.01, gamma=0.55, key=jax.random.key(0))
    params = jnp.array([1., 2., 3.])
    state = noise.init(params)
    update = jax.jit(noise.update)
    outs = []
    for _ in range(3):
        updates, state = update(jnp.zeros(3), state)
        outs.append(updates)
    assert not jnp.allclose(outs[0], outs[1]), outs
    print(outs)
