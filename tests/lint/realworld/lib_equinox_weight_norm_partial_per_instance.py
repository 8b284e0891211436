# source: https://github.com/patrick-kidger/equinox/blob/f16bb5baee1a15031c5c75a08a449cfccdde0c00/equinox/nn/_weight_norm.py
# observed on jax 0.10.2 CPU: `eqx.nn.WeightNorm` before pull 1240 (issue 965) builds a fresh
#   `ft.partial` for its `_norm` field in every `__init__`. A partial compares by identity, and
#   `eqx.filter_jit` keeps non-array leaves in its cache key, so a second WeightNorm built from
#   the same layer makes a filter_jit-ed function trace again (assert_max_traces raises in
#   __main__); `eqx.tree_equal` of the two is False too, as the issue reports. The class is as
#   at that commit (equinox 0.13.8 ships the same code) with its long docstrings cut; its
#   relative imports are spelled `from equinox ...`, and __main__ is added.
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

        self._norm = ft.partial(  # expect: JIT301
            _norm_except_axis,
            norm=ft.partial(jnp.linalg.norm, keepdims=True),
            axis=axis,
        )
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
    forward(m1, x)
    retraced = None
    try:
        forward(m2, x)  # tolerate: JIT301
    except RuntimeError as e:
        retraced = str(e)
    # observed: line 53 gives each WeightNorm its own partial: the second, identical model
    #   traces `forward` again, which assert_max_traces reports
    assert retraced is not None and "traced 2 times" in retraced, retraced
    assert not eqx.tree_equal(m1, m2)
