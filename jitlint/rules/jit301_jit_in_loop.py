"""The JIT301 rule (jit-in-loop): `jax.jit` of a fresh function in code that runs repeatedly."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.rules.base import Rule
from jitlint.rules.helpers import ALL_MODES

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


class JitInLoop(Rule):
    """
    ## What it does
    Flags `jax.jit` (or `pmap`, `eqx.filter_jit`, ...) applied inside a loop to a `lambda`, a
    `functools.partial(...)` or a function defined in that loop.

    ## Why is this bad?
    JAX caches compiled code by the identity of the function. A lambda, a new `partial`
    object or a function defined in the loop body is a new object every iteration, so every
    iteration misses the cache and compiles again: the loop runs at compile speed. Jitting a
    function defined once outside the loop (`jax.jit(step)(x)`) is fine: it hits the cache.

    ## Example
    ```python
    for i in range(10):
        y = jax.jit(lambda x: x * i)(x)
    ```

    ## Use instead
    ```python
    scale = jax.jit(lambda x, i: x * i)
    for i in range(10):
        y = scale(x, i)
    ```

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT301"
    name = "jit-in-loop"
    message = (
        "jit of {function} inside a loop creates a new function every iteration, so JAX "
        "recompiles each time; jit it once before the loop and pass changing values as arguments"
    )
    modes = ALL_MODES
    VALID = (
        """
import jax


def unjitted_loop_body(prev_i):
    return prev_i + 1


def run():
    i = 0
    while i < 10:
        i = jax.jit(unjitted_loop_body)(i)
    return i
""",
        """
import jax
from functools import partial


def g(x, n):
    return x * n


step = jax.jit(partial(g, n=3))


def run(x):
    for _ in range(10):
        x = step(x)
    return x
""",
    )
    INVALID = (
        """
import jax


def run(x):
    for i in range(10):
        x = jax.jit(lambda y: y * i)(x)  # JIT301
    return x
""",
        """
from functools import partial
import jax


def g(x, n):
    return x * n


def run(x):
    i = 0
    while i < 10:
        x = jax.jit(partial(g, n=i))(x)  # JIT301
        i += 1
    return x
""",
        """
import jax


def run(xs):
    out = []
    for x in xs:

        @jax.jit  # JIT301
        def step(y):
            return y + x

        out.append(step(x))
    return out
""",
    )

    def _fresh(self, expr: cst.BaseExpression, ctx: RuleContext) -> str | None:
        if isinstance(expr, cst.Lambda):
            return "a lambda"
        if isinstance(expr, cst.Call):
            q = ctx.qualname(expr.func)
            if q == "functools.partial":
                return "a `partial(...)`"
            inner = ctx.transform(expr.func)
            if inner is not None and expr.args:
                return self._fresh(expr.args[0].value, ctx)
            return None
        if isinstance(expr, cst.Name) and ctx.defined_in_loop(expr.value):
            return f"`{expr.value}`, defined in the loop,"
        return None

    def _report(self, ctx: RuleContext, node: cst.CSTNode, what: str) -> None:
        self.report(ctx, node, function=what)

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check a jit call inside a loop."""
        if not ctx.in_loop or not node.args or node.args[0].keyword is not None:
            return
        t = ctx.transform(node.func)
        if t is None or not t.caches or isinstance(node.func, cst.Call):
            return
        what = self._fresh(node.args[0].value, ctx)
        if what is not None:
            self._report(ctx, node, what)

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: RuleContext) -> None:
        """Check a jit-decorated function defined inside a loop."""
        if not ctx.in_loop:
            return
        for dec in node.decorators:
            t = ctx.transform(dec.decorator)
            if t is not None and t.caches:
                self._report(ctx, dec, f"`{node.name.value}`, defined in the loop,")
                return
