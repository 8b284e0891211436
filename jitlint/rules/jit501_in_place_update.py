"""The JIT501 rule (in-place-update): `x[i] = v` on a JAX array."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import knowledge as K
from jitlint.analysis.cst_util import STRING_LITERALS, descendants, strings_only
from jitlint.analysis.kinds import ARRAYS
from jitlint.analysis.knowledge import words
from jitlint.fixes.model import NodeFix, Replace
from jitlint.model import TRACED_MODES, Applicability
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    AT_OPS,
    arg,
    assigned_values,
    code,
    is_at,
    scope_param,
    self_assignments,
    state,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


_AUG_OPS: dict[type[cst.BaseAugOp], str] = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}
# jax.numpy functions that return a tuple or list of arrays (or a Python value), not an array.
_NOT_AN_ARRAY = words("""
    split array_split hsplit vsplit dsplit meshgrid nonzero where unique broadcast_arrays
    histogram histogram2d histogramdd atleast_1d atleast_2d atleast_3d tril_indices
    triu_indices diag_indices indices ix_ unravel_index frexp modf divmod
    """)


_ARRAY_METHODS = words("""
    reshape astype ravel flatten transpose squeeze copy clip sum mean max min prod cumsum
    swapaxes T real imag conj round
    """)


# Annotations of parameters that are not plain arrays: containers, and mutable references
# (`jax.Ref`, flax `nnx.Variable`), which support item assignment.
_CONTAINER_HINTS = (
    "dict",
    "Dict",
    "list",
    "List",
    "Mapping",
    "Sequence",
    "tuple",
    "Tuple",
    "Ref",
    "Variable",
)


_MAX_DEPTH = 6


class Kind(enum.Enum):
    """Say what an expression evidently holds."""

    JAX = "jax"  # certainly a JAX array
    OTHER = "other"  # certainly something else (NumPy array, list, dict, ...)
    UNKNOWN = "unknown"


def array_kind(
    expr: cst.BaseExpression, ctx: RuleContext, depth: int = 0, binding: str | None = None
) -> Kind:
    """Tell whether ``expr`` is evidently a JAX array, evidently not one, or unknown.

    ``binding`` names the variable whose assigned value ``expr`` is: inside it, that name
    refers to the variable's earlier value (its parameter, in ``x = x * 2``).
    """
    if depth > _MAX_DEPTH:
        return Kind.UNKNOWN
    if isinstance(expr, cst.Call):
        return _call_kind(expr, ctx, depth, binding)
    if isinstance(expr, cst.BinaryOperation):
        kinds = {
            _operand_kind(expr.left, ctx, depth + 1, binding),
            _operand_kind(expr.right, ctx, depth + 1, binding),
        }
        return Kind.JAX if Kind.JAX in kinds and Kind.OTHER not in kinds else Kind.UNKNOWN
    if isinstance(expr, cst.UnaryOperation):
        return array_kind(expr.expression, ctx, depth + 1, binding)
    if isinstance(expr, cst.Subscript | cst.Attribute):
        if isinstance(expr, cst.Attribute) and expr.attr.value not in _ARRAY_METHODS:
            return Kind.UNKNOWN
        base = array_kind(expr.value, ctx, depth + 1, binding)
        return Kind.JAX if base is Kind.JAX else Kind.UNKNOWN
    if isinstance(expr, cst.Name):
        if binding is None:  # what the name holds at this line, when a binding shows it
            held = ctx.kind_of(expr)
            if held is not None:
                return Kind.JAX if held in ARRAYS else Kind.OTHER
        param = _param_kind(expr, ctx)
        if expr.value == binding:
            return param or Kind.UNKNOWN
        values = assigned_values(ctx).get(expr.value)
        if not values:
            return param or Kind.UNKNOWN
        kinds = {array_kind(v, ctx, depth + 1, expr.value) for v in values}
        if param is not None:
            kinds.add(param)
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN
    if isinstance(expr, cst.List | cst.Dict | cst.Set | cst.ListComp | cst.DictComp | cst.SetComp):
        return Kind.OTHER
    return Kind.UNKNOWN


def _operand_kind(
    expr: cst.BaseExpression, ctx: RuleContext, depth: int, binding: str | None
) -> Kind:
    """Return the kind of an arithmetic operand: any traced value computes to an array."""
    kind = array_kind(expr, ctx, depth, binding)
    if kind is Kind.UNKNOWN and ctx.mode in TRACED_MODES and ctx.is_traced(expr):
        return Kind.JAX  # even a Variable or Ref gives a plain array in `v * 2`
    return kind


def _param_kind(name: cst.Name, ctx: RuleContext) -> Kind | None:
    """Return the kind of a parameter's own value (None if ``name`` is no parameter here).

    A parameter of traced code holding a traced value is an array unless its annotation
    names a container (a pytree of arrays).
    """
    param = scope_param(ctx, name.value)
    if param is None:
        return None
    if ctx.mode not in TRACED_MODES or ctx.is_stateful or not ctx.is_traced(name):
        return Kind.UNKNOWN  # flax transforms pass Variables, which support item assignment
    if name.value in _used_as_container(ctx):
        return Kind.OTHER  # `obs.items()` somewhere in the function: a dict of arrays
    if name.value in _container_carries(ctx):
        return Kind.OTHER  # `fori_loop(0, n, body, [a, b])`: the carry is that list
    if param.annotation is not None:
        hint = code(param.annotation.annotation)
        if any(h in hint for h in _CONTAINER_HINTS):
            return Kind.UNKNOWN
    return Kind.JAX


# Methods Python containers have and JAX arrays do not: a name they are called on is a
# pytree of arrays, not an array (`for k, v in obs.items(): ... obs[k] = v`).
_CONTAINER_ONLY_METHODS = words("""
    items keys values get append extend insert remove pop popitem setdefault update add
    discard clear
""")


def _used_as_container(ctx: RuleContext) -> frozenset[str]:
    """Return the names the function walked calls a container-only method on, or whose
    items it compares with strings (`bc[0] in ["not-a-knot", "periodic"]`, `bc[1] ==
    "natural"`): an array's items are numbers, never strings."""
    scope = ctx.scope
    found: dict[int, frozenset[str]] = state(ctx, "JIT501.containers", dict)
    if id(scope) not in found:
        names: set[str] = set()
        for node in descendants(scope):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.attr.value in _CONTAINER_ONLY_METHODS
            ):
                names.add(node.func.value.value)
            elif (
                isinstance(node, cst.Comparison)
                and isinstance(node.left, cst.Subscript)
                and isinstance(node.left.value, cst.Name)
                and any(
                    isinstance(c.comparator, STRING_LITERALS) or strings_only(c.comparator)
                    for c in node.comparisons
                )
            ):
                names.add(node.left.value.value)
        found[id(scope)] = frozenset(names)
    return found[id(scope)]


# The lax loops, with where each takes its body function and its initial carry, and which
# parameter of the body receives the carry.
_CARRIES = {
    "jax.lax.fori_loop": ((2, "body_fun"), (3, "init_val"), 1),
    "jax.lax.while_loop": ((1, "body_fun"), (2, "init_val"), 0),
    "jax.lax.scan": ((0, "f"), (1, "init"), 0),
}


def _container_carries(ctx: RuleContext) -> frozenset[str]:
    """Return the parameters of the function walked that a `lax` loop of the module hands a
    carry it starts as a list, tuple or dict literal: the body gets that container back, not
    an array (`val[1] = ...` then assigns into the list)."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef):
        return frozenset()
    uses: dict[str, list[tuple[str, cst.BaseExpression]]] = state(
        ctx, "JIT501.loop-carries", lambda: _loop_carries(ctx)
    )
    params = [p.name.value for p in (*scope.params.posonly_params, *scope.params.params)]
    out: set[str] = set()
    for via, init in uses.get(scope.name.value, ()):
        index = _CARRIES[via][2]
        if index < len(params) and isinstance(init, cst.List | cst.Tuple | cst.Dict):
            out.add(params[index])
    return frozenset(out)


def _loop_carries(ctx: RuleContext) -> dict[str, list[tuple[str, cst.BaseExpression]]]:
    """Map each function name the module gives a `lax` loop as its body to the loops and
    their initial carries."""
    out: dict[str, list[tuple[str, cst.BaseExpression]]] = {}
    if not ctx.mentions("loop") and not ctx.mentions("scan"):
        return out
    for node in descendants(ctx.module):
        if type(node) is not cst.Call:
            continue
        assert isinstance(node, cst.Call)
        via = ctx.qualname(node.func)
        if via not in _CARRIES:
            continue
        (fpos, fkw), (ipos, ikw), _ = _CARRIES[via]
        body, init = arg(node, fpos, fkw), arg(node, ipos, ikw)
        if body is not None and init is not None and isinstance(body.value, cst.Name):
            out.setdefault(body.value.value, []).append((via, init.value))
    return out


def _call_kind(call: cst.Call, ctx: RuleContext, depth: int, binding: str | None) -> Kind:
    func = call.func
    q = ctx.qualname(func)
    if q is not None:
        if q in K.STATIC_CALLS:
            return Kind.OTHER
        if q.startswith("jax.numpy."):
            last = q.rsplit(".", 1)[-1]
            if last in _NOT_AN_ARRAY or q.startswith("jax.numpy.linalg."):
                return Kind.UNKNOWN
            return Kind.JAX
        if q.startswith(("jax.random.", "jax.nn.")):
            return Kind.JAX
        if q.startswith("numpy.") or q in {"list", "dict", "set", "bytearray"}:
            return Kind.OTHER
    if isinstance(func, cst.Attribute):
        if func.attr.value in AT_OPS and is_at(func.value):
            return Kind.JAX
        if func.attr.value in _ARRAY_METHODS:
            receiver = array_kind(func.value, ctx, depth + 1, binding)
            return receiver if receiver is Kind.JAX else Kind.UNKNOWN
    return Kind.UNKNOWN


class InPlaceUpdate(Rule):
    """
    ## What it does
    Flags item assignment (`x[i] = v`) and augmented item assignment (`x[i] += v`) on a JAX
    array: a traced array in jitted code, or, anywhere, a name bound only to `jnp.*` arrays
    (and arithmetic on them), or a `self.<attr>` its class only ever sets to `jnp.*` arrays.
    The carry of a `lax` loop started from a list, tuple or dict literal
    (`fori_loop(0, n, body, [a, b])`) reaches the body as that container, not as an array.

    ## Why is this bad?
    JAX arrays are immutable. Item assignment raises `TypeError: '<class 'jaxlib...ArrayImpl'>'
    object does not support item assignment` (under jit and outside it). NumPy arrays, lists
    and dicts are not affected and are never flagged.

    ## Example
    ```python
    @jax.jit
    def accumulate(hist, idx):
        hist[idx] += 1
        return hist
    ```

    ## Use instead
    ```python
    @jax.jit
    def accumulate(hist, idx):
        hist = hist.at[idx].add(1)
        return hist
    ```

    ## Fix safety
    When the array is a plain name, the fix rewrites `x[i] = v` to `x = x.at[i].set(v)` and
    `x[i] op= v` to `x = x.at[i].add/subtract/multiply/divide/power(v)`; it is safe, since the
    original statement can only raise. Other targets (`self.x[i] = v`) and operators (`//=`,
    `%=`, ...) get no fix.
    """

    code = "JIT501"
    name = "in-place-update"
    message = (
        "`{name}` is a JAX array, which is immutable: `{target}` assignment raises TypeError; "
        "use {advice}"
    )
    modes = ALL_MODES
    fix_applicability = Applicability.SAFE
    VALID = (
        """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x, params, v):
    x = x.at[0].set(v)
    params["w"] = x
    out = [None] * 3
    out[0] = x
    return x, params, out

def host(labels):
    counts = np.zeros(10)
    for l in labels:
        counts[l] += 1
    table = {}
    table["a"] = jnp.zeros(3)
    return counts, table
""",
        """
import jax
from jax import lax

def partial_sums(z, n):
    @jax.jit
    def body(i, val):
        val[1] = val[1] * z  # the carry is the list `fori_loop` was given
        val[0] += val[1]
        return val

    return lax.fori_loop(1, n, body, [z, z])[0]
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp

@jax.jit
def accumulate(hist, idx, v):
    hist[idx] += 1  # JIT501
    hist[0] = v  # JIT501
    return hist

def eager():
    x = jnp.zeros(5)
    x[0] = 1.0  # JIT501
    return x
""",
    )

    def _check(
        self, ctx: RuleContext, stmt: cst.Assign | cst.AugAssign, target: cst.BaseExpression
    ) -> None:
        if type(target) is not cst.Subscript or is_at(target):
            return
        root = target.value
        while isinstance(root, cst.Subscript):
            root = root.value
        if any(
            isinstance(e.slice, cst.Index)
            and isinstance(e.slice.value, cst.SimpleString | cst.Ellipsis)
            for e in target.slice
        ):
            return  # a key means a dict; `ref[...] = v` is how jax.Ref/nnx.Variable are written
        if isinstance(root, cst.Attribute) and _self_attribute_is_array(root, ctx):
            name = code(root)
        elif isinstance(root, cst.Name) and array_kind(root, ctx) is Kind.JAX:
            name = root.value
        else:
            return
        fix = _inplace_fix(stmt, target, ctx)
        advice = "`x = x.at[i].set(v)` (or `.add(v)` for `+=`)"
        if fix is not None:
            new = fix.replacements[0].new
            assert isinstance(new, str)
            text = " ".join(new.split())
            advice = f"`{text if len(text) <= 60 else text[:57] + '...'}`"
        self.report(ctx, stmt, fix=fix, name=name, target=snippet(target), advice=advice)

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Check `x[i] = v`."""
        for t in node.targets:
            self._check(ctx, node, t.target)

    def visit_AugAssign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        """Check `x[i] += v`."""
        self._check(ctx, node, node.target)


def _self_attribute_is_array(attr: cst.Attribute, ctx: RuleContext) -> bool:
    """Tell whether ``self.<attr>`` is only ever assigned JAX arrays in its class."""
    cls = ctx.enclosing_class
    if cls is None or not isinstance(attr.value, cst.Name) or attr.value.value != "self":
        return False
    values = self_assignments(cls, ctx).get(attr.attr.value)
    return bool(values) and all(_evident_array(v, ctx) for v in values or ())


def _evident_array(value: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether a value is a JAX array by its own text: a `jnp.*` call or an update."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value in AT_OPS and is_at(func.value):
        return True
    q = ctx.qualname(func) or ""
    last = q.rsplit(".", 1)[-1]
    return (
        q.startswith(("jax.numpy.", "jax.random."))
        and last not in _NOT_AN_ARRAY
        and q not in K.STATIC_CALLS
        and not q.startswith("jax.numpy.linalg.")
    )


def _inplace_fix(
    stmt: cst.Assign | cst.AugAssign, target: cst.Subscript, ctx: RuleContext
) -> NodeFix | None:
    base = target.value
    if not isinstance(base, cst.Name):
        return None
    if isinstance(stmt, cst.Assign):
        if len(stmt.targets) != 1:
            return None
        op = "set"
    else:
        found = _AUG_OPS.get(type(stmt.operator))
        if found is None:
            return None
        op = found
    text = code(target)
    index = text[text.index("[", len(base.value)) + 1 : text.rindex("]")]
    new = f"{base.value} = {base.value}.at[{index}].{op}({code(stmt.value)})"
    return NodeFix(f"Use `.at[].{op}()`", Applicability.SAFE, (Replace(stmt, new),))
