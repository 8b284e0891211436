"""The JIT201 rule (stale-global): traced code reads a global that changes later."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.model import Mode
from jitlint.rules.base import Rule

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


class StaleGlobal(Rule):
    """
    ## What it does
    Flags a jitted function that reads a module-level global which the module reassigns
    (a later assignment, an augmented assignment, a `global` write elsewhere) or which is a
    mutable container mutated somewhere in the module.

    ## Why is this bad?
    `jax.jit` traces the function once and caches the compiled program. A global read while
    tracing is baked into that program as a constant; when the global later changes, the cached
    program keeps using the old value, silently. Constants that are never rebound are fine.

    ## Example
    ```python
    g = 0.0


    @jax.jit
    def add_g(x):
        return x + g


    g = 10.0  # add_g still adds 0.0 if it was already traced
    ```

    ## Use instead
    ```python
    @jax.jit
    def add_g(x, g):
        return x + g
    ```

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT201"
    name = "stale-global"
    message = (
        "`{name}` is a module global that is {how} elsewhere; jit bakes in its value at trace "
        "time and ignores later changes, pass it as an argument instead"
    )
    modes = frozenset({Mode.JIT})
    VALID = (
        """
import jax

SCALE = 2.0


@jax.jit
def f(x):
    return x * SCALE
""",
        """
import jax

try:
    import scipy

    HAVE_SCIPY = True
except ImportError:
    HAVE_SCIPY = False


@jax.jit
def f(x):
    return x + 1 if HAVE_SCIPY else x
""",
        """
import jax

g = 1.0


def f(x):
    return x + g


g = 2.0
""",
    )
    INVALID = (
        """
import jax

g = 0.0


@jax.jit
def add_g(x):
    return x + g  # JIT201


g = 10.0
""",
        """
import jax

weights = []


def register(w):
    weights.append(w)


@jax.jit
def total(x):
    return x * len(weights)  # JIT201
""",
    )

    def visit_Name(self, node: cst.Name, ctx: RuleContext) -> None:
        """Check a name read inside jitted code."""
        name = node.value
        if ctx.is_write_root(node):
            return  # mutating the global is JIT202's finding
        if not ctx.is_module_global(name) or not ctx.is_stale_prone(name):
            return
        how = "mutated" if ctx.is_mutated(name) else "reassigned"
        self.report(ctx, node, name=name, how=how)
