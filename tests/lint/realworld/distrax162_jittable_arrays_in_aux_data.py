# source: https://github.com/google-deepmind/distrax/issues/162 (distrax's `Jittable` at
#   f2ef70c39350c7487b109176340ec506d8406e00, distrax/_src/utils/jittable.py, the line the
#   reporter links: every attribute, arrays included, is pytree aux_data)
# observed on jax 0.10.2 CPU: the first jitted call with a distribution runs; the second, with
#   another distribution of the same shapes, raises ValueError: Exception raised while checking
#   equality of metadata fields of pytree ... (Note: arrays cannot be passed as metadata
#   fields!), as the reporter says ("Jittable functions can't be re-used across objects of the
#   same shape"). Added: `Normal`, a minimal stand-in for a distrax distribution (distrax and
#   TFP are not installed), and the jitted `log_prob` calls.
# gap: static-hashability
import abc

import jax
import jax.numpy as jnp


class Jittable(metaclass=abc.ABCMeta):
  """ABC that can be passed as an arg to a jitted fn, with readable state."""

  def __new__(cls, *args, **kwargs):
    try:
      registered_cls = jax.tree_util.register_pytree_node_class(cls)
    except ValueError:
      registered_cls = cls  # already registered
    instance = super(Jittable, cls).__new__(registered_cls)
    instance._args = args
    instance._kwargs = kwargs
    return instance

  def tree_flatten(self):
    return ((), ((self._args, self._kwargs), self.__dict__))

  @classmethod
  def tree_unflatten(cls, aux_data, _):
    (args, kwargs), state_dict = aux_data
    obj = cls(*args, **kwargs)
    obj.__dict__ = state_dict
    return obj


class Normal(Jittable):
  """Stand-in for distrax.Normal."""

  def __init__(self, loc, scale):
    self.loc = jnp.asarray(loc)
    self.scale = jnp.asarray(scale)

  def log_prob(self, value):
    z = (value - self.loc) / self.scale
    return -0.5 * z ** 2 - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi)


@jax.jit
def log_prob(dist, x):
  return dist.log_prob(x)


if __name__ == "__main__":
  x = jnp.array([0.5, 1.0, 1.5])
  log_prob(Normal(jnp.zeros(3), jnp.ones(3)), x)
  log_prob(Normal(jnp.ones(3), 2 * jnp.ones(3)), x)  # expect: JIT302
