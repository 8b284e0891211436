"""The JIT503 rule (discarded-at-update): an `.at[...]` update whose result is thrown away."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import libcst as cst

from jitlint.analysis.cst_util import descendants, variable_names
from jitlint.fixes.model import NodeFix, Replace
from jitlint.model import Applicability
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    AT_OPS,
    assigned_values,
    code,
    is_at,
    state,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


class DiscardedAtUpdate(Rule):
    """
    ## What it does
    Flags `x.at[i].set(v)` (or `.add`, `.multiply`, ... any `.at[...]` update) used as a
    statement, so that its result is thrown away; `x = x.at[i].set(v)` in a function
    that returns nothing and never reads the new `x` but to update it again; and
    `y = x.at[i].set(v)` whose `y` the same block binds again before anything reads it
    (`y = x.at[j].set(w)`: the first update is lost).

    ## Why is this bad?
    `.at[...].set()` does not modify `x`: JAX arrays are immutable, and the update returns a
    new array. A bare `x.at[i].set(v)` therefore does nothing, and `x` keeps its old values.

    ## Example
    ```python
    def reset_first(x):
        x.at[0].set(0.0)
        return x
    ```

    ## Use instead
    ```python
    def reset_first(x):
        x = x.at[0].set(0.0)
        return x
    ```

    ## Fix safety
    When the array is a plain name, the fix assigns the result back (`x = x.at[0].set(0.0)`).
    It is unsafe: it changes what the program computes (presumably to what was meant).
    """

    code = "JIT503"
    name = "discarded-at-update"
    message = (
        "`{update}` returns a new array and does not modify `{array}`; its result is discarded: "
        "assign it, e.g. `{array} = {update}`"
    )
    modes = ALL_MODES
    fix_applicability = Applicability.UNSAFE
    VALID = (
        """
import jax.numpy as jnp

def f(x, i, v):
    y = x.at[i].set(v)
    x = x.at[0].add(1.0)
    return y, x, x.at[-1].get()

def g(x):
    return x.at[1].multiply(2)
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp

def reset(x, idx, v):
    x.at[0].set(0.0)  # JIT503
    x.at[idx].add(v)  # JIT503
    return x

@jax.jit
def f(x):
    for i in range(3):
        x.at[i, i].set(1.0)  # JIT503
    return x
""",
        """
import jax


@jax.jit
def double_in_place(a):
    for i in range(a.size):
        a = a.at[i].set(2 * a[i])  # JIT503
""",
        """
import jax
import jax.numpy as jnp


@jax.jit
def randomize(friction, key):
    noise = jax.random.uniform(key, (2,))
    new_friction = friction.at[0].set(noise[0])  # JIT503
    new_friction = friction.at[1].set(noise[1])
    return new_friction


out = randomize(jnp.ones(2), jax.random.key(0))
""",
    )

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Check `a = a.at[i].set(v)` in a function that returns nothing and never reads the
        new `a` otherwise: every update is dropped when the function returns."""
        call = node.value
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if type(call) is not cst.Call or type(call.func) is not cst.Attribute:
            return
        func = call.func
        if func.attr.value not in AT_OPS or not is_at(func.value):
            return
        name = node.targets[0].target.value
        scope = ctx.scope
        if not isinstance(scope, cst.FunctionDef):
            return
        if len(assigned_values(ctx).get(name, ())) > 1 and _rebound_unread(scope, node, name, ctx):
            self.report(
                ctx,
                node.targets[0].target,
                f"`{snippet(call)}` makes a new array bound to `{name}`, but `{name}` is "
                "bound again before anything reads it, so the update is lost; update the "
                f"new `{name}` (`{name} = {name}.at[...]...`) or give it another name",
            )
            return
        if not _dropped(scope, name):
            return
        self.report(
            ctx,
            call,
            f"`{snippet(call)}` makes a new array that is bound to `{name}` but never returned "
            f"or used: `{scope.name.value}` returns nothing, so the update is lost; return "
            f"`{name}`",
        )

    def visit_Expr(self, node: cst.Expr, ctx: RuleContext) -> None:
        """Check expression statements that are `.at[...]` updates."""
        call = node.value
        if type(call) is not cst.Call or not isinstance(call.func, cst.Attribute):
            return
        func = call.func
        if func.attr.value not in AT_OPS or not is_at(func.value):
            return
        assert isinstance(func.value, cst.Subscript) and isinstance(func.value.value, cst.Attribute)
        base = func.value.value.value
        fix = None
        if isinstance(base, cst.Name):
            new = f"{base.value} = {code(call)}"
            title = f"Assign the result to `{base.value}`"
            fix = NodeFix(title, Applicability.UNSAFE, (Replace(call, new),))
        self.report(ctx, call, fix=fix, update=snippet(call), array=snippet(base))


_METADATA = frozenset({"shape", "size", "ndim", "dtype"})


def _rebound_unread(fn: cst.FunctionDef, assign: cst.Assign, name: str, ctx: RuleContext) -> bool:
    """Tell whether ``assign`` (`name = x.at[...].set(v)`) is followed, in its own block, by
    a statement that binds ``name`` again (`name = x.at[...].set(w)`) with no statement in
    between, nor that one's value, reading it: the first update is lost."""
    blocks: dict[int, dict[int, _Place]] = state(ctx, "JIT503.blocks", dict)
    where = blocks.get(id(fn))
    if where is None:
        where = blocks[id(fn)] = _statement_places(fn)
    place = where.get(id(assign))
    if place is None:
        return False
    line, k, body, index = place
    for stmt in (*line[k + 1 :], *body[index + 1 :]):
        small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt]
        for part in small:
            rebinds = (
                isinstance(part, cst.Assign)
                and len(part.targets) == 1
                and isinstance(part.targets[0].target, cst.Name)
                and part.targets[0].target.value == name
            )
            read_in: cst.CSTNode = part.value if isinstance(part, cst.Assign) and rebinds else part
            bare = isinstance(read_in, cst.Name) and read_in.value == name
            if bare or any(n.value == name for n in variable_names(read_in)):
                return False
            if rebinds:
                return True
    return False


# Where a simple statement sits: its line's statements and its index there, its block's
# statements and the line's index there.
_Place = tuple[Sequence[cst.BaseSmallStatement], int, Sequence[cst.BaseStatement], int]


def _statement_places(fn: cst.FunctionDef) -> dict[int, _Place]:
    """Map each simple statement of ``fn``'s blocks to where it sits (one walk)."""
    out: dict[int, _Place] = {}
    for block in (fn.body, *descendants(fn.body)):
        if type(block) is not cst.IndentedBlock:
            continue
        body = block.body
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.SimpleStatementLine):
                for k, small in enumerate(stmt.body):
                    out[id(small)] = (stmt.body, k, body, index)
    return out


def _dropped(fn: cst.FunctionDef, name: str) -> bool:
    """Tell whether ``fn`` returns nothing and reads ``name`` only to update it again
    (`name = name.at[...]...(... name[i] ...)`) or for its shape, size, ndim or dtype."""
    updates: set[int] = set()
    for node in descendants(fn.body):
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda or kind is cst.ClassDef:
            return False  # a closure may read it: not followed
        if kind is cst.Return and cast(cst.Return, node).value is not None:
            return False
        if kind is cst.Yield or kind is cst.Global or kind is cst.Nonlocal:
            return False
        if (
            type(node) is cst.Assign
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and node.targets[0].target.value == name
        ):
            updates.update(id(n) for n in descendants(node))
    metadata = {
        id(node.value)
        for node in descendants(fn.body)
        if isinstance(node, cst.Attribute) and node.attr.value in _METADATA
    }
    for node in descendants(fn.body):
        if (
            isinstance(node, cst.Name)
            and node.value == name
            and id(node) not in updates
            and id(node) not in metadata
        ):
            return False
    return True
