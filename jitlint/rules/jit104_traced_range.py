"""The JIT104 rule (traced-range): `range(n)` with a traced `n`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.rules.base import Rule, snippet

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


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
    message = (
        "`{call}` has a traced bound and fails under jit; use `lax.fori_loop`, or make the bound "
        "static (`static_argnames`)"
    )
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
        """
import flax.struct
import jax
import jax.numpy as jnp

@flax.struct.dataclass
class Grid:
    cells: jax.Array
    num_dims: int = flax.struct.field(pytree_node=False)

@jax.jit
def shift_all(grid: Grid):
    out = grid.cells
    for axis in range(grid.num_dims):  # a static field: a Python int under jit
        out = jnp.roll(out, 1, axis)
    return out
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

    def _check(self, it: cst.BaseExpression, ctx: RuleContext) -> None:
        if (
            isinstance(it, cst.Call)
            and ctx.qualname(it.func) == "range"
            and any(ctx.is_traced(a.value) for a in it.args)
        ):
            self.report(ctx, it, call=snippet(it))

    def visit_For(self, node: cst.For, ctx: RuleContext) -> None:
        """Check a for loop over range()."""
        self._check(node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx: RuleContext) -> None:
        """Check a comprehension over range()."""
        self._check(node.iter, ctx)
