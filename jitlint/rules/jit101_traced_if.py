"""Rules on Python control flow that depends on traced values (JIT1xx)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.rules.base import Rule, snippet

if TYPE_CHECKING:
    from jitlint.analysis.analyzer import Analysis


class TracedIf(Rule):
    """
    ## What it does
    Flags an `if`/`elif` statement, a conditional expression (`a if c else b`) or a
    comprehension filter whose condition depends on a traced value.

    ## Why is this bad?
    Inside `jax.jit` (and `vmap`, `pmap`, `lax` loop bodies) arguments are abstract tracers:
    their values are not known while Python runs the function. Python's `if` needs a concrete
    `True`/`False`, so JAX raises `TracerBoolConversionError` the first time the function is
    traced. Branching on shapes, dtypes, `is None`, static arguments, or on whether an
    optional pytree field is set (`if state.dynamic_scale:`) is fine: those are Python
    values at trace time.

    ## Example
    ```python
    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    ## Use instead
    ```python
    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)
    ```
    Use `lax.cond(pred, true_fn, false_fn, x)` when the branches are expensive, or mark the
    argument static with `static_argnames` when it is a Python value that selects the code path.

    ## Fix safety
    There is no automatic fix: choosing between `jnp.where`, `lax.cond` and a static argument
    needs a human.
    """

    code = "JIT101"
    name = "traced-if"
    message = (
        "Python `if` on a traced value fails under jit; use `jnp.where`/`lax.cond`, or make the "
        "argument static (`static_argnames`)"
    )
    VALID = (
        """
import jax
import jax.numpy as jnp


@jax.jit
def log2_if_rank_2(x):
    if x.ndim == 2:
        return jnp.log2(x)
    return x
""",
        """
from functools import partial
import jax


@partial(jax.jit, static_argnames="mode")
def f(x, mode):
    if mode == "double":
        return 2 * x
    return x
""",
        """
import jax


@jax.jit
def f(x, bias=None):
    if bias is None:
        return x
    if x.shape[0] > 3:
        return x + bias
    return x
""",
        """
import jax


def f(x):
    if x > 0:
        return x
    return -x


g = jax.jit(f, static_argnums=0)
""",
    )
    INVALID = (
        """
import jax


@jax.jit
def f(x):
    if x > 0:  # JIT101
        return x
    return -x
""",
        """
from jax import jit


def g(x, n):
    return x if n > 0 else -x  # JIT101


h = jit(g)
""",
        """
import jax


def step(x):
    y = x * 2
    if y.sum() > 1.0:  # JIT101
        y = y / 2
    return y


fast = jax.vmap(step)
""",
    )

    def _check(self, test: cst.BaseExpression, ctx: Analysis, what: str) -> None:
        if ctx.is_traced(test) and not ctx.is_field_truthiness(test):
            self.report(
                ctx,
                test,
                f"{what} condition `{snippet(test)}` depends on a traced value and fails under "
                "jit; use `jnp.where`/`lax.cond`, or make the argument static "
                "(`static_argnames`)",
            )

    def visit_If(self, node: cst.If, ctx: Analysis) -> None:
        """Check an if/elif statement."""
        self._check(node.test, ctx, "`if`")

    def visit_IfExp(self, node: cst.IfExp, ctx: Analysis) -> None:
        """Check a conditional expression."""
        self._check(node.test, ctx, "conditional expression")

    def visit_CompIf(self, node: cst.CompIf, ctx: Analysis) -> None:
        """Check a comprehension filter."""
        self._check(node.test, ctx, "comprehension `if`")


class TracedWhile(Rule):
    """
    ## What it does
    Flags a `while` loop whose condition depends on a traced value.

    ## Why is this bad?
    Under `jax.jit` the loop condition is a tracer; Python cannot decide whether to run
    another iteration, so tracing fails with `TracerBoolConversionError`. Even where it would
    work (a concrete value), the loop is unrolled into the compiled program.

    ## Example
    ```python
    @jax.jit
    def loop(x, n):
        i = 0
        while i < n:
            x = x * 2
            i += 1
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def loop(x, n):
        return lax.fori_loop(0, n, lambda i, x: x * 2, x)
    ```
    `lax.while_loop(cond_fn, body_fn, init)` handles conditions that are not a count.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT102"
    name = "traced-while"
    message = "`while` on a traced value fails under jit; use `lax.while_loop` or `lax.fori_loop`"
    VALID = (
        """
import jax


@jax.jit
def f(x):
    i = 0
    while i < 10:
        x = x + i
        i += 1
    return x
""",
        """
import jax


def driver(step, x, n):
    while n > 0:
        x = step(x)
        n -= 1
    return x
""",
    )
    INVALID = (
        """
import jax


@jax.jit
def loop(x, n):
    i = 0
    while i < n:  # JIT102
        x = x * 2
        i += 1
    return x
""",
        """
import jax
import jax.numpy as jnp


@jax.jit
def newton(x):
    while jnp.abs(x * x - 2.0) > 1e-6:  # JIT102
        x = x - (x * x - 2.0) / (2 * x)
    return x
""",
    )

    def visit_While(self, node: cst.While, ctx: Analysis) -> None:
        """Check a while loop's condition."""
        if ctx.is_traced(node.test):
            self.report(
                ctx,
                node.test,
                f"`while` condition `{snippet(node.test)}` depends on a traced value and fails "
                "under jit; use `lax.while_loop` (or `lax.fori_loop` for a counted loop)",
            )


class TracedBoolOp(Rule):
    """
    ## What it does
    Flags `and`, `or`, `not`, chained comparisons (`a < x < b`) and `assert` applied to
    traced values outside an `if`/`while` condition (those are JIT101/JIT102).

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
    )

    def _report_once(self, node: cst.BaseExpression, ctx: Analysis, what: str) -> None:
        ctx.mark_condition(node)  # nested operands belong to this finding
        self.report(
            ctx,
            node,
            f"{what} on a traced value calls `bool()` on a tracer and fails under jit; use "
            "`jnp.logical_and`/`jnp.logical_or`/`jnp.logical_not` (or `&`, `|`, `~`)",
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation, ctx: Analysis) -> None:
        """Check `and`/`or` outside conditions."""
        if not ctx.in_condition(node) and ctx.is_traced(node):
            op = "`and`" if isinstance(node.operator, cst.And) else "`or`"
            self._report_once(node, ctx, op)

    def visit_UnaryOperation(self, node: cst.UnaryOperation, ctx: Analysis) -> None:
        """Check `not` outside conditions."""
        if (
            isinstance(node.operator, cst.Not)
            and not ctx.in_condition(node)
            and ctx.is_traced(node.expression)
        ):
            self._report_once(node, ctx, "`not`")

    def visit_Comparison(self, node: cst.Comparison, ctx: Analysis) -> None:
        """Check chained comparisons, which hide an `and`."""
        if len(node.comparisons) > 1 and not ctx.in_condition(node) and ctx.is_traced(node):
            self._report_once(node, ctx, "a chained comparison")

    def visit_Assert(self, node: cst.Assert, ctx: Analysis) -> None:
        """Check assert statements."""
        if ctx.is_traced(node.test):
            self.report(
                ctx,
                node,
                f"`assert {snippet(node.test)}` tests a traced value and fails under jit; "
                "check shapes/dtypes only, or use `jax.experimental.checkify`/`eqx.error_if`",
            )


class TracedRange(Rule):
    """
    ## What it does
    Flags `for ... in range(n)` inside traced code when `n` (or another bound) is traced.

    ## Why is this bad?
    `range` needs Python integers. With a traced bound, JAX raises a
    `TracerIntegerConversionError` while tracing. Constant bounds (`range(10)`,
    `range(x.shape[0])`) are fine: they unroll at trace time.

    ## Example
    ```python
    @jax.jit
    def power(x, n):
        for _ in range(n):
            x = x * x
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def power(x, n):
        return lax.fori_loop(0, n, lambda i, x: x * x, x)
    ```
    Or mark `n` static (`static_argnames="n"`) if it takes few values.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT104"
    name = "traced-range"
    message = "`range()` with a traced bound fails under jit; use `lax.fori_loop` or a static bound"
    VALID = (
        """
import jax


@jax.jit
def f(x):
    for i in range(x.shape[0]):
        x = x.at[i].add(i)
    for _ in range(10):
        x = x * 2
    return x
""",
        """
from functools import partial
import jax


@partial(jax.jit, static_argnums=1)
def power(x, n):
    for _ in range(n):
        x = x * x
    return x
""",
    )
    INVALID = (
        """
import jax


@jax.jit
def power(x, n):
    for _ in range(n):  # JIT104
        x = x * x
    return x
""",
    )

    def _check(self, it: cst.BaseExpression, ctx: Analysis) -> None:
        if (
            isinstance(it, cst.Call)
            and ctx.qualname(it.func) == "range"
            and any(ctx.is_traced(a.value) for a in it.args)
        ):
            self.report(
                ctx,
                it,
                f"`{snippet(it)}` has a traced bound and fails under jit; use `lax.fori_loop`, "
                "or make the bound static (`static_argnames`)",
            )

    def visit_For(self, node: cst.For, ctx: Analysis) -> None:
        """Check a for loop over range()."""
        self._check(node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx: Analysis) -> None:
        """Check a comprehension over range()."""
        self._check(node.iter, ctx)
