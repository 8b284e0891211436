"""The JIT103 rule (traced-bool-op): `and`/`or`/`not`/`assert` on traced values."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.kinds import CONTAINERS
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import state

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


def _cover(node: cst.BaseExpression, covered: set[int]) -> None:
    """Note ``node`` and the and/or/not operands inside it: they belong to one finding."""
    covered.add(id(node))
    if isinstance(node, cst.BooleanOperation):
        _cover(node.left, covered)
        _cover(node.right, covered)
    elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        _cover(node.expression, covered)


def _covered(node: cst.CSTNode, ctx: RuleContext) -> bool:
    """Tell whether ``node`` is a condition (JIT101/JIT102) or inside a reported operation."""
    covered: set[int] = state(ctx, "traced-bool-op-covered", set)
    return ctx.in_condition(node) or id(node) in covered


def _truth_traced(expr: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether Python asking ``expr`` for its truth asks a tracer."""
    if isinstance(expr, cst.BooleanOperation):
        return _truth_traced(expr.left, ctx) or _truth_traced(expr.right, ctx)
    return ctx.is_traced(expr) and ctx.kind_of(expr) not in CONTAINERS


class TracedBoolOp(Rule):
    """
    ## What it does
    Flags `and`, `or`, `not`, chained comparisons (`a < x < b`) and `assert` applied to
    traced values outside an `if`/`while` condition (those are JIT101/JIT102). `x or {}`
    (or `[]`, `()`) defaults an optional container, a pytree whose truth Python knows, and
    is not reported.

    ## Why is this bad?
    `and`/`or`/`not` and chained comparisons call `bool()` on their operands, and `assert`
    calls it on its test. A tracer has no truth value while the function is traced, so these
    raise `TracerBoolConversionError` under `jax.jit`.

    ## Example
    ```python
    @jax.jit
    def in_range(x, lo, hi):
        return x > lo and x < hi
    ```

    ## Use instead
    ```python
    @jax.jit
    def in_range(x, lo, hi):
        return jnp.logical_and(x > lo, x < hi)  # or (x > lo) & (x < hi)
    ```
    For assertions on values use `jax.experimental.checkify` or `equinox.error_if`.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT103"
    name = "traced-bool-op"
    message = (
        "`and`/`or`/`not` on a traced value fails under jit; use `jnp.logical_and`/"
        "`jnp.logical_or`/`jnp.logical_not` (or `&`, `|`, `~`)"
    )
    VALID = (
        """
import jax
import jax.numpy as jnp


@jax.jit
def f(x, y):
    both = jnp.logical_and(x > 0, y > 0)
    ok = x.ndim == 2 and y.ndim == 2
    return jnp.where(both, x, y), ok
""",
        """
import jax


@jax.jit
def f(x):
    assert x.shape[0] > 0, "empty"
    return x
""",
    )
    INVALID = (
        """
import jax


@jax.jit
def in_range(x, lo, hi):
    return x > lo and x < hi  # JIT103
""",
        """
import jax


@jax.jit
def f(x):
    assert x > 0  # JIT103
    return x
""",
        """
import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    return jnp.where(not x, 0.0, 1.0), 0 < x < 1  # JIT103
""",
        """
import jax
import jax.numpy as jnp

in_unit = lambda x: jnp.where(0.0 < x < 1.0, x, 0.0)  # JIT103

@jax.jit
def clip_unit(x):
    return in_unit(x)  # the module's lambda runs here, in the trace
""",
    )

    def _report_once(self, node: cst.BaseExpression, ctx: RuleContext, what: str) -> None:
        _cover(node, state(ctx, "traced-bool-op-covered", set))
        self.report(
            ctx,
            node,
            f"{what} on a traced value calls `bool()` on a tracer and fails under jit; use "
            "`jnp.logical_and`/`jnp.logical_or`/`jnp.logical_not` (or `&`, `|`, `~`)",
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation, ctx: RuleContext) -> None:
        """Check `and`/`or` outside conditions: Python asks only the left operand for its
        truth (`flag or y > 0` returns the tracer when `flag` is false)."""
        if isinstance(node.operator, cst.Or) and _empty_container(node.right):
            return  # `stats = stats or {}`: an optional dict or list (a pytree), defaulted
        if not _covered(node, ctx) and _truth_traced(node.left, ctx):
            op = "`and`" if isinstance(node.operator, cst.And) else "`or`"
            self._report_once(node, ctx, op)

    def visit_UnaryOperation(self, node: cst.UnaryOperation, ctx: RuleContext) -> None:
        """Check `not` outside conditions."""
        if (
            isinstance(node.operator, cst.Not)
            and not _covered(node, ctx)
            and ctx.is_traced(node)  # the truth of `xs` in `not xs`: static for a list
        ):
            self._report_once(node, ctx, "`not`")

    def visit_Comparison(self, node: cst.Comparison, ctx: RuleContext) -> None:
        """Check chained comparisons, which hide an `and`."""
        if len(node.comparisons) > 1 and not _covered(node, ctx) and ctx.is_traced(node):
            self._report_once(node, ctx, "a chained comparison")

    def visit_Assert(self, node: cst.Assert, ctx: RuleContext) -> None:
        """Check assert statements."""
        if ctx.is_traced(node.test):
            self.report(
                ctx,
                node,
                f"`assert {snippet(node.test)}` tests a traced value and fails under jit; "
                "check shapes/dtypes only, or use `jax.experimental.checkify`/`eqx.error_if`",
            )


def _empty_container(expr: cst.BaseExpression) -> bool:
    """Tell whether ``expr`` is `{}`, `[]`, `()`, `dict()`, `list()` or `tuple()`."""
    if isinstance(expr, cst.Dict | cst.List | cst.Tuple):
        return not expr.elements
    return (
        isinstance(expr, cst.Call)
        and not expr.args
        and isinstance(expr.func, cst.Name)
        and expr.func.value in {"dict", "list", "tuple"}
    )
