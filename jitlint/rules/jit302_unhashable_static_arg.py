"""The JIT302 rule (unhashable-static-arg): a static argument that cannot be hashed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.builders import hashable_literal
from jitlint.model import Applicability
from jitlint.rules.base import Rule
from jitlint.rules.helpers import ALL_MODES

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


_ARRAY_FACTORIES = frozenset(
    f"{mod}.{fn}"
    for mod in ("numpy", "jax.numpy")
    for fn in [
        "array",
        "asarray",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "eye",
        "zeros_like",
        "ones_like",
    ]
)


_UNHASHABLE_CALLS = frozenset({"list", "dict", "set", "bytearray"}) | _ARRAY_FACTORIES


class UnhashableStaticArg(Rule):
    """
    ## What it does
    Flags a call to a jitted function that passes a list, dict, set or array literal (or a
    name bound to one) in a position marked static with `static_argnums`/`static_argnames`.

    ## Why is this bad?
    Static arguments are part of jit's cache key, so they must be hashable. A list, dict, set
    or array raises `ValueError: Non-hashable static arguments are not supported` at the call.

    ## Example
    ```python
    @partial(jax.jit, static_argnames="dims")
    def f(x, dims):
        return x.transpose(dims)


    f(x, dims=[1, 0])
    ```

    ## Use instead
    ```python
    f(x, dims=(1, 0))
    ```

    ## Fix safety
    A list literal of constants becomes a tuple (`[1, 0]` -> `(1, 0)`) and a set literal a
    `frozenset`. The fix is safe: the original call always raises, and the callee reads a
    tuple like a list. Dicts (no hashable standard counterpart that keeps `cfg[key]` working),
    names bound to containers, and literals holding lists get no fix.
    """

    code = "JIT302"
    name = "unhashable-static-arg"
    fix_applicability = Applicability.SAFE
    message = (
        "static argument receives a {kind}, which is not hashable, so the call raises; pass a "
        "tuple (or another hashable value) instead"
    )
    modes = ALL_MODES
    VALID = (
        """
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="dims")
def f(x, dims):
    return jnp.transpose(jnp.asarray(x), dims)


y = f(jnp.ones((2, 3)), dims=(1, 0))
z = f([1.0, 2.0], dims=(0,))
""",
    )
    INVALID = (
        """
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="dims")
def f(x, dims):
    return x.transpose(dims)


y = f(jnp.ones((2, 3)), dims=[1, 0])  # JIT302
""",
        """
import jax


def g(x, cfg):
    return x * cfg["scale"]


g_fast = jax.jit(g, static_argnums=1)


def run(x):
    cfg = {"scale": 2.0}
    return g_fast(x, cfg)  # JIT302
""",
    )

    def _kind(self, expr: cst.BaseExpression, ctx: RuleContext) -> str | None:
        if isinstance(expr, cst.List | cst.ListComp):
            return "list"
        if isinstance(expr, cst.Dict | cst.DictComp):
            return "dict"
        if isinstance(expr, cst.Set | cst.SetComp):
            return "set"
        if isinstance(expr, cst.Call):
            q = ctx.qualname(expr.func)
            if q in _UNHASHABLE_CALLS:
                return "array" if q in _ARRAY_FACTORIES else q
        if isinstance(expr, cst.Name) and ctx.binds_container(expr.value):
            return "list/dict/set"
        return None

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check the static arguments of a call to a jitted function."""
        spec = ctx.jit_spec(node.func)
        if spec is None:
            return
        positions, names = spec
        index = 0
        for arg in node.args:
            if arg.star:
                return  # positions after *args are unknown
            if arg.keyword is None:
                hit = index in positions
                index += 1
            else:
                hit = arg.keyword.value in names
            kind = self._kind(arg.value, ctx) if hit else None
            if kind is not None:
                self.report(ctx, arg.value, fix=hashable_literal(arg.value), kind=kind)
