# source: https://github.com/google/flax/blob/v0.12.8/flax/training/dynamic_scale.py
#   (the module as installed with flax 0.12.8, without the license header and with the long
#   docstrings shortened; the __main__ block runs the example of the class docstring, which
#   jits value_and_grad through a lambda taking the DynamicScale as a pytree argument)
# observed on jax 0.10.2 CPU: runs clean under jit: `if has_aux`, `if axis_name is not None`
#   and `if self.minimum_scale is not None` test Python values (minimum_scale and
#   growth_interval are pytree_node=False fields), while fin_steps and scale are traced and
#   only reach jnp.where.
# gap: exemption-vs-JAX
"""Dynamic loss scaling for mixed precision gradients."""

import functools
from typing import Any, NamedTuple
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

from flax import struct
from flax.typing import Array


class DynamicScaleResult(NamedTuple):
  dynamic_scale: 'DynamicScale'
  finite: Array
  aux: Any
  grad: Any


class DynamicScale(struct.PyTreeNode):
  """Dynamic loss scaling for mixed precision gradients."""

  growth_factor: float = struct.field(pytree_node=False, default=2.0)
  backoff_factor: float = struct.field(pytree_node=False, default=0.5)
  growth_interval: int = struct.field(pytree_node=False, default=2000)
  fin_steps: int = 0
  scale: float = 65536.0
  minimum_scale: float | None = struct.field(
    pytree_node=False, default=jnp.finfo(jnp.float32).tiny
  )

  def value_and_grad(
    self,
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    axis_name: str | None = None,
  ) -> Callable[..., DynamicScaleResult]:
    """Wrapper around `jax.value_and_grad`."""

    @functools.wraps(fun)
    def loss_wrapper(*args):
      aux = fun(*args)
      if has_aux:
        return (self.scale * aux[0], aux[1])
      else:
        return self.scale * aux

    grad_fn = jax.value_and_grad(loss_wrapper, argnums, has_aux)

    def grad_fn_wrapper(*args):
      aux, grad = grad_fn(*args)
      aux = (aux[0] / self.scale, aux[1]) if has_aux else aux / self.scale

      grad = jax.tree_util.tree_map(
        lambda g: jnp.asarray(g, jnp.float32) / self.scale, grad
      )
      if axis_name is not None:
        grad = lax.pmean(grad, axis_name)

      finite = jnp.array(True)
      for g in jax.tree_util.tree_leaves(grad):
        finite &= jnp.all(lax.is_finite(g))

      grow = self.fin_steps == self.growth_interval
      fin_scale = jnp.where(
        grow & finite,
        jnp.minimum(
          self.scale * self.growth_factor, jnp.finfo(jnp.float32).max
        ),
        self.scale,
      )
      inf_scale = self.scale * self.backoff_factor
      if self.minimum_scale is not None:
        inf_scale = jnp.maximum(inf_scale, self.minimum_scale)
      new_scale = jnp.where(finite, fin_scale, inf_scale)
      new_fin_steps = jnp.where(grow | (~finite), 0, self.fin_steps + 1)

      new_self = self.replace(fin_steps=new_fin_steps, scale=new_scale)
      return DynamicScaleResult(new_self, finite, aux, grad)

    return grad_fn_wrapper


if __name__ == "__main__":
  def loss_fn(p):
    return jnp.asarray(p, jnp.float16) ** 2
  p = jnp.array(1., jnp.float32)

  dyn_scale = DynamicScale(growth_interval=10)
  compute_grad = jax.jit(lambda ds, p: ds.value_and_grad(loss_fn)(p))
  for _ in range(100):
    dyn_scale, is_fin, loss, grad = compute_grad(dyn_scale, p)
    p += jnp.where(is_fin, 0.01 * grad, 0.)
  assert bool(is_fin)
  print(loss, dyn_scale.scale)
