"""The JIT102 rule (traced-while): `while` on a traced value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.rules.base import Rule, snippet

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


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
    message = (
        "`while` condition `{condition}` depends on a traced value and fails under jit; use "
        "`lax.while_loop` (or `lax.fori_loop` for a counted loop)"
    )
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

    def visit_While(self, node: cst.While, ctx: RuleContext) -> None:
        """Check a while loop's condition."""
        if ctx.is_traced(node.test):
            self.report(ctx, node.test, condition=snippet(node.test))
