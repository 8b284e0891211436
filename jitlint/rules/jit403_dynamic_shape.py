"""Rule on operations whose output shape depends on traced values (JIT403)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.kinds import Kind
from jitlint.analysis.knowledge import words
from jitlint.model import TRACED_MODES
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    NotesAssignmentTargets,
    assigned_values,
    assignment_targets,
    code,
    has_keyword,
    positional,
    scope_param,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext

# jax.numpy functions whose result size is data-dependent unless `size=` is given.
SIZE_CHANGING = words("""
    nonzero argwhere flatnonzero unique unique_values unique_counts unique_inverse unique_all
    extract compress setdiff1d union1d intersect1d
    """)
# jax.experimental.sparse constructors that count the nonzeros of dense data.
_SPARSE_FROMDENSE = frozenset(
    f"jax.experimental.sparse.{n}"
    for n in words("BCOO.fromdense BCSR.fromdense bcoo_fromdense bcsr_fromdense")
)
_BOOL_FUNCS = frozenset(
    f"jax.numpy.{n}"
    for n in words("""
        isnan isinf isfinite isneginf isposinf isreal signbit isclose isin logical_and
        logical_or logical_not logical_xor greater greater_equal less less_equal equal
        not_equal
        """)
)
_BOOL_DTYPES = frozenset({"bool", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_"})
_MAX_DEPTH = 4


class DynamicShape(NotesAssignmentTargets, Rule):
    """
    ## What it does
    Flags boolean-mask indexing of arrays (`x[x > 0]`, `x[mask]`, and updates through a mask,
    `x.at[mask].set(v)`, with a traced boolean mask:
    a comparison, a `jnp.isnan`-style test, `&`/`|`/`~` of those, or a parameter annotated
    as boolean or named like a mask)
    and `jnp.roots` without `strip_zeros=False`, `jnp.nonzero`, `jnp.argwhere`,
    `jnp.flatnonzero`, `jnp.unique`, one-argument
    `jnp.where(c)` (and the other size-changing set functions) called without `size=` in
    traced code, or handed to a transform that calls them on tracers
    (`jnp.apply_along_axis(jnp.where, 1, x)`, `jax.vmap(jnp.unique)(x)`,
    `jax.lax.map(jnp.nonzero, xs)`), and the `jax.experimental.sparse` constructors
    `BCOO.fromdense` / `BCSR.fromdense` without `nse=` in traced code.

    ## Why is this bad?
    XLA compiles programs with fixed shapes. The number of elements a mask selects is only
    known once the data is, so under `jax.jit` these raise `NonConcreteBooleanIndexError` or
    `ConcretizationTypeError`. A masked update `x.at[mask].set(v)` keeps the shape, yet JAX
    still turns the mask into indices first and raises the same error: write it
    `jnp.where(mask, v, x)`. Outside traced code they are all fine. Inside `jit` (and
    anything staged out to a jaxpr, such as a `lax.scan` body or a numpyro model) they fail
    even on a NumPy constant, which JAX turns into a tracer first; under `vmap` or `grad`
    alone a constant stays concrete.

    ## Example
    ```python
    @jax.jit
    def positive_mean(x):
        return x[x > 0].mean()
    ```

    ## Use instead
    ```python
    @jax.jit
    def positive_mean(x):
        mask = x > 0
        return jnp.sum(jnp.where(mask, x, 0.0)) / jnp.maximum(mask.sum(), 1)
    ```
    Or give the result a fixed size: `jnp.nonzero(x > 0, size=16, fill_value=-1)`.

    ## Fix safety
    There is no automatic fix: the right padding size is the user's choice.
    """

    code = "JIT403"
    name = "dynamic-shape"
    modes = ALL_MODES
    message = (
        "value-dependent output shape fails under jit; use `jnp.where(mask, x, 0)` or pass "
        "`size=` (and `fill_value=`)"
    )
    VALID = (
        """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x):
    mask = x > 0
    idx = jnp.nonzero(mask, size=4, fill_value=-1)
    y = jnp.where(mask, 0.0, x)
    return jnp.where(mask, x, 0.0), idx, y, x[x.shape[0] // 2]

def host(x):
    x = np.asarray(x)
    return x[x > 0], np.unique(x), jnp.nonzero(jnp.asarray(x))
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    mask = jnp.isfinite(x) & (x > 0)
    a = x[mask]  # JIT403
    b = jnp.nonzero(x > 0.5)  # JIT403
    c = jnp.where(x > 0)  # JIT403
    d = jnp.unique(x)  # JIT403
    return a, b, c, d, x[x > 0].sum()  # JIT403
""",
        """
import jax
import jax.numpy as jnp

@jax.jit
def clip_negative(x):
    return x.at[x < 0].set(0.0)  # JIT403
""",
        """
import jax
import jax.numpy as jnp

@jax.jit
def poles(coefficients):
    return jnp.roots(coefficients)  # JIT403
""",
    )

    def visit_Subscript(self, node: cst.Subscript, ctx: RuleContext) -> None:
        """Check indexing with a traced boolean mask."""
        if ctx.mode not in TRACED_MODES or id(node) in assignment_targets(ctx):
            return
        for element in node.slice:
            index = element.slice
            if (
                isinstance(index, cst.Index)
                and ctx.is_traced(index.value)
                and _is_bool(index.value, ctx, 0)
            ):
                if isinstance(node.value, cst.Attribute) and node.value.attr.value == "at":
                    advice = "an update through a mask also fails under jit "
                    advice += "(NonConcreteBooleanIndexError); use `jnp.where(mask, v, x)`"
                else:
                    advice = "has a value-dependent shape and fails under jit; use "
                    advice += "`jnp.where(mask, x, 0)` (or `x.sum(where=mask)`)"
                self.report(ctx, node, f"boolean-mask indexing `{snippet(node)}`: {advice}")
                return

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check size-changing functions called without `size=`."""
        func = node.func
        q = ctx.qualname(func)
        args = list(positional(node))
        self._check_handed(node, ctx)
        if ctx.mode not in TRACED_MODES:
            return  # only a transform traces a function handed to it outside traced code
        if q in _SPARSE_FROMDENSE and not has_keyword(node, "nse") and args:
            # The number of stored elements is counted from the data unless `nse=` is given.
            if ctx.staged or ctx.is_traced(args[0].value):
                what = f"`{q.removeprefix('jax.experimental.')}` without `nse=`"
                self._report(ctx, node, what, "pass `nse=` (the number of stored elements)")
            return
        if q is not None and q.startswith("jax.numpy."):
            name = q.removeprefix("jax.numpy.")
            if name == "where":
                sized = len(args) == 1 and not has_keyword(node, "x", "y", "size")
            elif name == "roots":
                # leading zeros are stripped from the coefficients unless told not to
                sized = not _strip_zeros_off(node)
            else:
                sized = name in SIZE_CHANGING and not has_keyword(node, "size")
            # Staged out, JAX turns even a NumPy constant into a tracer first (omnistaging).
            if sized and args and (ctx.staged or ctx.is_traced(args[0].value)):
                if name == "roots":
                    self._report(ctx, node, "`jnp.roots`", "pass `strip_zeros=False`")
                    return
                self._report(ctx, node, f"`jnp.{name}`")
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value == "nonzero"
            and not has_keyword(node, "size")
            and ctx.is_traced(func.value)
        ):
            self._report(ctx, node, "`.nonzero()`")

    def _check_handed(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check a size-changing function handed to a transform, which calls it on tracers.

        `jnp.apply_along_axis(jnp.where, 1, x)` and `jax.lax.map(jnp.nonzero, xs)` call it
        with what they pass; `jax.vmap(jnp.unique)(x)` with the arguments of the outer call.
        """
        outer: cst.Call | None = None
        t = ctx.transform_named(ctx.qualname(node.func))
        call = node
        if t is None and type(node.func) is cst.Call:
            t = ctx.transform_named(ctx.qualname(node.func.func))
            outer, call = node, node.func
        if t is None or not t.traces_params:
            return
        if outer is not None:
            count: int | None = len(list(positional(outer)))
            keywords = {a.keyword.value for a in outer.args if a.keyword is not None}
        elif t.passes:
            forwarded = len(list(positional(call))) - (t.forwards_from or len(call.args))
            count, keywords = t.passes + max(0, forwarded), set()
        else:
            return  # the arguments come later, out of sight
        if any(a.star for a in (outer or call).args):
            count = None
        for target in t.function_args(call):
            q = ctx.qualname(target) or ""
            if not q.startswith("jax.numpy."):
                continue
            name = q.removeprefix("jax.numpy.")
            if name == "where":
                sized = count == 1 and not keywords & {"x", "y", "size"}
            else:
                sized = name in SIZE_CHANGING and "size" not in keywords
            if sized:
                self.report(
                    ctx,
                    node,
                    f"`jnp.{name}` handed to `{t.qualname}` in `{snippet(node)}` is called on "
                    "tracers and has a value-dependent output size, so it fails; map a function "
                    "that passes `size=` (and `fill_value=`) instead",
                )

    def _report(
        self,
        ctx: RuleContext,
        node: cst.Call,
        what: str,
        advice: str = "pass `size=` (and `fill_value=`), or use `jnp.where(mask, x, fill)`",
    ) -> None:
        self.report(
            ctx,
            node,
            f"{what} in `{snippet(node)}` has a value-dependent output size and fails under "
            f"jit; {advice}",
        )


def _is_bool(expr: cst.BaseExpression, ctx: RuleContext, depth: int) -> bool:
    """Tell whether ``expr`` is evidently a boolean array (a mask)."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, cst.Comparison):
        return not any(
            isinstance(c.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn)
            for c in expr.comparisons
        )
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _is_bool(expr.expression, ctx, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and isinstance(
        expr.operator, cst.BitAnd | cst.BitOr | cst.BitXor
    ):
        return _is_bool(expr.left, ctx, depth + 1) or _is_bool(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.Call):
        if ctx.kind_of(expr) is Kind.MASK:  # `jnp.array([True, False])`, `x.any(0)`, ...
            return True
        func = expr.func
        if ctx.qualname(func) in _BOOL_FUNCS:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "astype" and expr.args:
            dtype = expr.args[0].value
            return (isinstance(dtype, cst.Name) and dtype.value == "bool") or (
                ctx.qualname(dtype) in _BOOL_DTYPES
            )
        return False
    if isinstance(expr, cst.Name):
        held = ctx.kind_of(expr)  # what the name holds at this line, when a binding shows it
        if held is not None:
            return held is Kind.MASK
        values = assigned_values(ctx).get(expr.value)
        if values is None:
            return _is_bool_param(expr.value, ctx)
        return all(_is_bool(v, ctx, depth + 1) for v in values)
    return False


def _is_bool_param(name: str, ctx: RuleContext) -> bool:
    """Tell whether a parameter is a boolean mask by its annotation or, failing that, name."""
    param = scope_param(ctx, name)
    if param is None:
        return False
    if param.annotation is not None:
        return "bool" in code(param.annotation.annotation).lower()
    return "mask" in name.lower()


def _strip_zeros_off(call: cst.Call) -> bool:
    """Tell whether `jnp.roots(...)` is given `strip_zeros=False` (a fixed number of roots)."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "strip_zeros":
            return isinstance(a.value, cst.Name) and a.value.value == "False"
    return False
