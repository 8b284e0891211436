# source: https://github.com/patrick-kidger/equinox/blob/55e07870620061a9dd6b47428dd6ce60b05106f9/equinox/nn/_weight_norm.py
# observed on jax 0.10.2 CPU: `eqx.nn.WeightNorm` as pull 1240 fixed it (issue 965): `_norm`
#   comes from `_make_norm(axis)`, cached on `axis`, so two WeightNorms built from the same
#   layer hold the same callable, compare equal, and share one trace of a filter_jit-ed
#   function (assert_max_traces stays quiet). The class is as at that commit with its long
#   docstrings cut; its relative imports are spelled `from equinox ...`, and __main__ is added.
# gap: per-call-recompile
import functools as ft
from collections.abc import Callable
from typing import Generic, TypeVar

import jax
import jax.numpy as jnp
from jaxtyping import Array, PRNGKeyArray, Scalar

import equinox as eqx
from equinox import field, Module
from equinox import tree_at
from equinox.nn._misc import named_scope


_Layer = TypeVar("_Layer")


def _norm_except_axis(v: Array, norm: Callable[[Array], Scalar], axis: int | None):
    if axis is None:
        return norm(v)
    else:
        return jax.vmap(norm, in_axes=axis, out_axes=axis)(v)


@ft.cache
def _make_norm(axis: int | None) -> Callable[[Array], Scalar]:
    # Cached so that two `WeightNorm`s with the same `axis` share the same callable,
    # and so compare equal under `eqx.tree_equal`.
    # https://github.com/patrick-kidger/equinox/issues/965
    return ft.partial(
        _norm_except_axis,
        norm=ft.partial(jnp.linalg.norm, keepdims=True),
        axis=axis,
    )


class WeightNorm(Module, Generic[_Layer]):
    r"""Applies weight normalisation to a given parameter."""

    layer: _Layer
    g: Array
    weight_name: str = field(static=True)
    axis: int | None = field(static=True)
    _norm: Callable[[Array], Scalar]

    def __init__(
        self,
        layer: _Layer,
        weight_name: str = "weight",
        axis: int | None = 0,
    ):
        self.layer = layer
        self.weight_name = weight_name
        self.axis = axis

        self._norm = _make_norm(axis)
        self.g = self._norm(getattr(layer, weight_name))

    @named_scope("eqx.nn.WeightNorm")
    def __call__(self, x: Array, *, key: PRNGKeyArray | None = None) -> Array:
        v = getattr(self.layer, self.weight_name)
        weight = v * self.g / self._norm(v)
        layer = tree_at(lambda l: getattr(l, self.weight_name), self.layer, weight)
        return layer(x)


@eqx.filter_jit
@eqx.debug.assert_max_traces(max_traces=1)
def forward(model, x):
    return model(x)


if __name__ == "__main__":
    layer = eqx.nn.Linear(2, 2, key=jax.random.key(0))
    m1 = WeightNorm(layer)
    m2 = WeightNorm(layer)
    x = jnp.ones(2)
    y1 = forward(m1, x)
    y2 = forward(m2, x)  # same trace: assert_max_traces does not raise
    assert eqx.tree_equal(m1, m2)
    assert jnp.allclose(y1, y2)
