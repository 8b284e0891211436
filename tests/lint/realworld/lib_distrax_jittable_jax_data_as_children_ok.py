# source: https://github.com/google-deepmind/distrax/blob/7fc5bd7efff4a7144d175199159f115c3e68a3cf/distrax/_src/utils/jittable.py
#   (the fix of distrax#162, 0ecad05 "Explicitly separate JAX and non-JAX data during Jittable
#   serialization", as the file stands today)
# observed on jax 0.10.2 CPU: runs clean; arrays are pytree children and Python scalars stay
#   metadata, so one jitted `log_prob` serves two distributions of the same shapes with one
#   compilation (jax.core.valid_jaxtype prints a DeprecationWarning). Added: `Normal`, a
#   minimal stand-in for a distrax distribution (distrax and TFP are not installed), and the
#   `__main__` block.
# gap: exemption-vs-JAX
import abc
import jax
import jax.numpy as jnp


class Jittable(metaclass=abc.ABCMeta):
  """ABC that can be passed as an arg to a jitted fn, with readable state."""

  def __new__(cls, *args, **kwargs):
    # Discard the parameters to this function because the constructor is not
    # called during serialization: its `__dict__` gets repopulated directly.
    del args, kwargs
    try:
      registered_cls = jax.tree_util.register_pytree_node_class(cls)
    except ValueError:
      registered_cls = cls  # Already registered.
    return object.__new__(registered_cls)

  def tree_flatten(self):
    leaves, treedef = jax.tree_util.tree_flatten(self.__dict__)
    switch = list(map(_is_jax_data, leaves))
    children = [leaf if s else None for leaf, s in zip(leaves, switch)]
    metadata = [None if s else leaf for leaf, s in zip(leaves, switch)]
    return children, (metadata, switch, treedef)

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    metadata, switch, treedef = aux_data
    leaves = [j if s else p for j, p, s in zip(children, metadata, switch)]
    obj = object.__new__(cls)
    obj.__dict__ = jax.tree_util.tree_unflatten(treedef, leaves)
    return obj


def _is_jax_data(x):
  """Check whether `x` is an instance of a JAX-compatible type."""
  # If it's a tracer, then it's already been converted by JAX.
  if isinstance(x, jax.core.Tracer):
    return True

  # `jax.vmap` replaces vmappable leaves with `object()` during serialization.
  if type(x) is object:  # pylint: disable=unidiomatic-typecheck
    return True

  # Primitive types (e.g. shape tuples) are treated as metadata for Distrax.
  if isinstance(x, (bool, int, float)) or x is None:
    return False

  # Return True if JAX considers `x` a valid JAX type.
  return jax.core.valid_jaxtype(x)


class Normal(Jittable):
  """Stand-in for distrax.Normal."""

  def __init__(self, loc, scale, event_ndims=0):
    self.loc = jnp.asarray(loc)
    self.scale = jnp.asarray(scale)
    self.event_ndims = event_ndims

  def log_prob(self, value):
    z = (value - self.loc) / self.scale
    return -0.5 * z ** 2 - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi)


if __name__ == "__main__":
  @jax.jit
  def log_prob(dist, x):
    return dist.log_prob(x)

  x = jnp.array([0.5, 1.0, 1.5])
  a = log_prob(Normal(jnp.zeros(3), jnp.ones(3)), x)
  b = log_prob(Normal(jnp.ones(3), 2 * jnp.ones(3)), x)
  assert not jnp.allclose(a, b)
  assert log_prob._cache_size() == 1, log_prob._cache_size()
  leaves = jax.tree_util.tree_leaves(Normal(jnp.zeros(3), jnp.ones(3)))
  assert len(leaves) == 2, leaves
