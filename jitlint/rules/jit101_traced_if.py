"""The JIT101 rule (traced-if): `if`/`elif`/ternary on a traced value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.rules.base import Rule, snippet

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


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
    values at trace time. So is a bare test of a parameter annotated with a record class of
    the project that defines no `__bool__` or `__len__` (`memory: Optional[Memory]`, then
    `if not memory:`): the truth value of a record is the object's. A field the module's
    records declare as an array (`is_full: jax.Array`) is a leaf traced with its record:
    `if buffer.is_full:` is reported.

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
        "{construct} condition `{condition}` depends on a traced value and fails under jit; use "
        "`jnp.where`/`lax.cond`, or make the argument static (`static_argnames`)"
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

    def _check(self, test: cst.BaseExpression, ctx: RuleContext, what: str) -> None:
        if ctx.is_traced(test) and not ctx.is_field_truthiness(test):
            self.report(ctx, test, construct=what, condition=snippet(test))

    def visit_If(self, node: cst.If, ctx: RuleContext) -> None:
        """Check an if/elif statement."""
        self._check(node.test, ctx, "`if`")

    def visit_IfExp(self, node: cst.IfExp, ctx: RuleContext) -> None:
        """Check a conditional expression."""
        self._check(node.test, ctx, "conditional expression")

    def visit_CompIf(self, node: cst.CompIf, ctx: RuleContext) -> None:
        """Check a comprehension filter."""
        self._check(node.test, ctx, "comprehension `if`")
