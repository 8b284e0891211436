"""Rule on Python loops that unroll into huge traced programs (JIT303)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from jitlint.analysis.scopes import suite_statements
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import positional, state

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext

_MAX_DEPTH = 8
_BIG = 10**12  # bound constant folding: nobody writes ranges larger than this


class LargeUnrolledLoop(Rule):
    """
    ## What it does
    Flags a Python `for` loop (or comprehension) over `range(...)` with a constant trip count
    of at least 1000 iterations inside traced code, or nested constant loops whose trip counts
    multiply to that many (reported at the loop where the product reaches it). Bounds may be
    literals, module constants assigned once (`NUM_STEPS = 10_000`) and arithmetic on them.

    ## Why is this bad?
    JAX traces Python loops by running them: every iteration is recorded, so a loop of
    10,000 steps becomes a program with 10,000 copies of its body. Compilation then takes
    minutes and the compiled program is large, where `lax.fori_loop` or `lax.scan` compile
    the body once. Short loops (a few layers, a handful of steps) unroll fine and are not
    flagged.

    ## Example
    ```python
    NUM_STEPS = 10_000

    @jax.jit
    def simulate(x, v):
        for _ in range(NUM_STEPS):
            v = v - 0.001 * x
            x = x + 0.001 * v
        return x, v
    ```

    ## Use instead
    ```python
    @jax.jit
    def simulate(x, v):
        def body(_, state):
            x, v = state
            v = v - 0.001 * x
            return x + 0.001 * v, v

        return lax.fori_loop(0, NUM_STEPS, body, (x, v))
    ```
    Use `lax.scan` when each step produces an output to keep.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT303"
    name = "large-unrolled-loop"
    message = (
        "{loop} at trace time, unrolling the loop body into the compiled program that many "
        "times; use `lax.fori_loop` or `lax.scan`"
    )
    # Trip count from which a loop is reported.
    threshold: ClassVar[int] = 1000
    VALID = (
        """
import jax
import jax.numpy as jnp
from jax import lax

NUM_LAYERS = 6

@jax.jit
def f(x, ws):
    for i in range(NUM_LAYERS):
        x = jnp.tanh(x @ ws[i])
    for i in range(x.shape[0]):
        x = x.at[i].add(1.0)
    return lax.fori_loop(0, 10_000, lambda i, x: x * 0.999, x)

def host(x):
    for _ in range(100_000):
        x = x * 0.999
    return x
""",
    )
    INVALID = (
        """
import jax

NUM_STEPS = 10_000

@jax.jit
def simulate(x, v):
    for _ in range(NUM_STEPS):  # JIT303
        v = v - 0.001 * x
        x = x + 0.001 * v
    return x, v

@jax.jit
def total(x):
    return sum(x * i for i in range(2 * 2048))  # JIT303

@jax.jit
def blur(img):
    for i in range(64):  # JIT303
        for j in range(64):
            img = img.at[i, j].set(img[i, j] * 0.5)
    return img
""",
    )

    def _check(self, node: cst.For | cst.CompFor, ctx: RuleContext) -> None:
        trips = _trips(node.iter, ctx)
        if trips is None:
            return
        inner = _nested_trips(node.body, ctx) if isinstance(node, cst.For) else 1
        # Report where the product of nested constant loops first reaches the threshold.
        if trips * inner < self.threshold or inner >= self.threshold:
            return
        what = f"`{snippet(node.iter)}` runs {trips} iterations"
        if inner > 1:
            what = f"`{snippet(node.iter)}` and the constant loops inside it run {trips * inner}"
            what += " iterations"
        self.report(ctx, node if isinstance(node, cst.For) else node.iter, loop=what)

    def visit_For(self, node: cst.For, ctx: RuleContext) -> None:
        """Check a for loop over a constant range."""
        self._check(node, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx: RuleContext) -> None:
        """Check a comprehension over a constant range."""
        self._check(node, ctx)


def _trips(it: cst.BaseExpression, ctx: RuleContext) -> int | None:
    """Return the trip count of ``range(...)`` with constant bounds, else None."""
    if not isinstance(it, cst.Call) or ctx.qualname(it.func) != "range":
        return None
    args = list(positional(it))
    if not 1 <= len(args) <= 3 or len(args) != len(it.args):
        return None
    bounds = [_int_value(a.value, ctx, 0) for a in args]
    try:
        return len(range(*(b for b in bounds if b is not None))) if None not in bounds else None
    except (ValueError, OverflowError):
        return None


def _nested_trips(body: cst.BaseSuite, ctx: RuleContext) -> int:
    """Return the largest product of constant trip counts of loops nested in ``body``."""
    best = 1
    for st in suite_statements(body):
        if isinstance(st, cst.For):
            trips = _trips(st.iter, ctx)
            if trips is not None:
                best = max(best, trips * _nested_trips(st.body, ctx))
        elif isinstance(st, cst.If | cst.With | cst.While | cst.Try):
            best = max(best, _nested_trips(st.body, ctx))
    return best


def _int_value(expr: cst.BaseExpression, ctx: RuleContext, depth: int) -> int | None:
    """Fold ``expr`` to an integer if it is built from literals and module constants."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, cst.Integer):
        try:
            return int(expr.value.replace("_", ""), 0)
        except ValueError:
            return None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _int_value(expr.expression, ctx, depth + 1)
        return None if inner is None else -inner
    if isinstance(expr, cst.BinaryOperation):
        left = _int_value(expr.left, ctx, depth + 1)
        right = _int_value(expr.right, ctx, depth + 1)
        if left is None or right is None:
            return None
        op = expr.operator
        result: int | None = None
        if isinstance(op, cst.Add):
            result = left + right
        elif isinstance(op, cst.Subtract):
            result = left - right
        elif isinstance(op, cst.Multiply):
            result = left * right
        elif isinstance(op, cst.FloorDivide) and right:
            result = left // right
        elif isinstance(op, cst.Power) and 0 <= right <= 64 and abs(left) <= 1024:
            result = left**right
        return result if result is not None and abs(result) < _BIG else None
    if isinstance(expr, cst.Name) and ctx.is_module_global(expr.value):
        constants: dict[str, cst.BaseExpression] = state(ctx, "JIT303.constants", lambda: {})
        if not constants:
            constants.update(_module_constants(ctx))
        value = constants.get(expr.value)
        return None if value is None else _int_value(value, ctx, depth + 1)
    return None


def _module_constants(ctx: RuleContext) -> dict[str, cst.BaseExpression]:
    """Return module-level names assigned exactly once, with their values."""
    out: dict[str, cst.BaseExpression] = {"": cst.Name("None")}  # never empty: computed once
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            target: cst.BaseExpression | None = None
            value: cst.BaseExpression | None = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign):
                target, value = small.target, small.value
            if (
                isinstance(target, cst.Name)
                and value is not None
                and ctx.assignment_count(target.value) == 1
                and not ctx.is_rebound(target.value)
            ):
                out[target.value] = value
    return out
