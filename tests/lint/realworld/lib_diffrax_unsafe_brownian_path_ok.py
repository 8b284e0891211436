# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/diffrax/_brownian/path.py
# observed on jax 0.10.2 CPU: diffrax's `UnsafeBrownianPath` runs clean under jit
#   (`jax.config.update("jax_debug_key_reuse", True)` stays quiet): `evaluate` is an
#   `eqx.filter_jit` method that derives a key from `self.key` with `jr.fold_in` of the
#   bit-cast interval ends, splits it once per output leaf, and (for Levy area) splits each
#   leaf key again into one key per draw; `t1 is None`, `levy_area is ...` and `use_levy` are
#   Python values at trace time, and `__init__` checks static dtypes. The module is as in
#   diffrax 0.7.2 with the two long docstrings cut and its relative imports spelled
#   `from diffrax...`; __main__ is added.
# gap: other
import math
from typing import cast

import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import jax.random as jr
import jax.tree_util as jtu
import lineax.internal as lxi
from jaxtyping import Array, PRNGKeyArray, PyTree
from lineax.internal import complex_to_real_dtype

from diffrax._custom_types import (
    AbstractBrownianIncrement,
    BrownianIncrement,
    levy_tree_transpose,
    RealScalarLike,
    SpaceTimeLevyArea,
    SpaceTimeTimeLevyArea,
)
from diffrax._misc import (
    force_bitcast_convert_type,
    is_tuple_of_ints,
    split_by_tree,
)
from diffrax._brownian.base import AbstractBrownianPath


class UnsafeBrownianPath(AbstractBrownianPath):
    """Brownian simulation that is only suitable for certain cases."""

    shape: PyTree[jax.ShapeDtypeStruct] = eqx.field(static=True)
    levy_area: type[BrownianIncrement | SpaceTimeLevyArea | SpaceTimeTimeLevyArea] = (
        eqx.field(static=True)
    )
    key: PRNGKeyArray

    def __init__(
        self,
        shape: tuple[int, ...] | PyTree[jax.ShapeDtypeStruct],
        key: PRNGKeyArray,
        levy_area: type[
            BrownianIncrement | SpaceTimeLevyArea | SpaceTimeTimeLevyArea
        ] = BrownianIncrement,
    ):
        self.shape = (
            jax.ShapeDtypeStruct(shape, lxi.default_floating_dtype())
            if is_tuple_of_ints(shape)
            else shape
        )
        self.key = key
        self.levy_area = levy_area

        if any(
            not jnp.issubdtype(x.dtype, jnp.inexact)
            for x in jtu.tree_leaves(self.shape)
        ):
            raise ValueError("UnsafeBrownianPath dtypes all have to be floating-point.")

    @property
    def t0(self):
        return -jnp.inf

    @property
    def t1(self):
        return jnp.inf

    @eqx.filter_jit
    def evaluate(
        self,
        t0: RealScalarLike,
        t1: RealScalarLike | None = None,
        left: bool = True,
        use_levy: bool = False,
    ) -> PyTree[Array] | AbstractBrownianIncrement:
        """Implements [`diffrax.AbstractBrownianPath.evaluate`][]."""
        del left
        if t1 is None:
            dtype = jnp.result_type(t0)
            t1 = t0
            t0 = jnp.array(0, dtype)
        else:
            with jax.numpy_dtype_promotion("standard"):
                dtype = jnp.result_type(t0, t1)
            t0 = jnp.astype(t0, dtype)
            t1 = jnp.astype(t1, dtype)
        t0 = eqxi.nondifferentiable(t0, name="t0")
        t1 = eqxi.nondifferentiable(t1, name="t1")
        t1 = cast(RealScalarLike, t1)
        t0_ = force_bitcast_convert_type(t0, jnp.int32)
        t1_ = force_bitcast_convert_type(t1, jnp.int32)
        key = jr.fold_in(self.key, t0_)
        key = jr.fold_in(key, t1_)
        key = split_by_tree(key, self.shape)
        out = jtu.tree_map(
            lambda key, shape: self._evaluate_leaf(
                t0, t1, key, shape, self.levy_area, use_levy
            ),
            key,
            self.shape,
        )
        if use_levy:
            out = levy_tree_transpose(self.shape, out)
            assert isinstance(out, self.levy_area)
        return out

    @staticmethod
    def _evaluate_leaf(
        t0: RealScalarLike,
        t1: RealScalarLike,
        key,
        shape: jax.ShapeDtypeStruct,
        levy_area: type[BrownianIncrement | SpaceTimeLevyArea | SpaceTimeTimeLevyArea],
        use_levy: bool,
    ):
        w_std = jnp.sqrt(t1 - t0).astype(shape.dtype)
        dt = jnp.asarray(t1 - t0, dtype=complex_to_real_dtype(shape.dtype))

        if levy_area is SpaceTimeTimeLevyArea:
            key_w, key_hh, key_kk = jr.split(key, 3)
            w = jr.normal(key_w, shape.shape, shape.dtype) * w_std
            hh_std = w_std / math.sqrt(12)
            hh = jr.normal(key_hh, shape.shape, shape.dtype) * hh_std
            kk_std = w_std / math.sqrt(720)
            kk = jr.normal(key_kk, shape.shape, shape.dtype) * kk_std
            levy_val = SpaceTimeTimeLevyArea(dt=dt, W=w, H=hh, K=kk)

        elif levy_area is SpaceTimeLevyArea:
            key_w, key_hh = jr.split(key, 2)
            w = jr.normal(key_w, shape.shape, shape.dtype) * w_std
            hh_std = w_std / math.sqrt(12)
            hh = jr.normal(key_hh, shape.shape, shape.dtype) * hh_std
            levy_val = SpaceTimeLevyArea(dt=dt, W=w, H=hh)
        elif levy_area is BrownianIncrement:
            w = jr.normal(key, shape.shape, shape.dtype) * w_std
            levy_val = BrownianIncrement(dt=dt, W=w)
        else:
            assert False

        if use_levy:
            return levy_val
        return w


if __name__ == "__main__":
    jax.config.update("jax_debug_key_reuse", True)
    path = UnsafeBrownianPath(shape=(3,), key=jr.key(0))
    w1 = path.evaluate(0.0, 0.1)
    w1_again = path.evaluate(0.0, 0.1)
    w2 = path.evaluate(0.1, 0.2)
    assert w1.shape == (3,) and jnp.allclose(w1, w1_again) and not jnp.allclose(w1, w2)
    incr = jax.jit(lambda t: path.evaluate(t, t + 0.1))(jnp.array(0.0))
    assert jnp.allclose(incr, w1)
    levy_path = UnsafeBrownianPath(shape=(2,), key=jr.key(1), levy_area=SpaceTimeLevyArea)
    levy = levy_path.evaluate(0.0, 0.5, use_levy=True)
    assert isinstance(levy, SpaceTimeLevyArea) and not jnp.allclose(levy.W, levy.H)
