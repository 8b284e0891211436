"""Small helpers shared by the rule modules: call arguments, per-file state, text edits."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jitlint.model import Edit, Location, Mode
from jitlint.walk import walk

if TYPE_CHECKING:
    from jitlint.analysis import Analysis

ALL_MODES = frozenset(Mode)
T = TypeVar("T")
_STATE: weakref.WeakKeyDictionary[Analysis, dict[str, object]] = weakref.WeakKeyDictionary()
_EMPTY = cst.Module([])


def code(node: cst.CSTNode) -> str:
    """Return the exact source text of ``node``."""
    return _EMPTY.code_for_node(node)


def state(ctx: Analysis, key: str, factory: Callable[[], T]) -> T:
    """Return per-file state of one rule, created by ``factory`` on first use."""
    slot = _STATE.setdefault(ctx, {})
    if key not in slot:
        slot[key] = factory()
    return slot[key]  # type: ignore[return-value]


def arg(call: cst.Call, position: int | None, keyword: str | None = None) -> cst.Arg | None:
    """Return the argument at ``position`` (counting plain positional ones) or ``keyword``."""
    index = 0
    for a in call.args:
        if a.star == "*":
            position = None  # later positions are unknowable after `*args`
        elif a.keyword is None and not a.star:
            if index == position:
                return a
            index += 1
        elif a.keyword is not None and a.keyword.value == keyword:
            return a
    return None


def has_keyword(call: cst.Call, *names: str) -> bool:
    """Tell whether ``call`` passes any of the keywords ``names`` (or ``**kwargs``)."""
    return any(
        a.star == "**" or (a.keyword is not None and a.keyword.value in names) for a in call.args
    )


def positional(call: cst.Call) -> Iterator[cst.Arg]:
    """Yield the plain positional arguments of ``call`` up to the first starred one."""
    for a in call.args:
        if a.star:
            return
        if a.keyword is None:
            yield a


def _ranges(ctx: Analysis) -> dict[cst.CSTNode, CodeRange]:
    def resolve() -> dict[cst.CSTNode, CodeRange]:
        wrapper = MetadataWrapper(ctx.module, unsafe_skip_copy=True)
        return dict(wrapper.resolve(PositionProvider))

    return state(ctx, "positions", resolve)


def replace(ctx: Analysis, node: cst.CSTNode, content: str) -> Edit:
    """Return an edit replacing the source of ``node`` with ``content``.

    Positions are resolved for the whole module, once, and only for files that get a fix.
    """
    r = _ranges(ctx)[node]
    return Edit(
        Location(r.start.line, r.start.column + 1), Location(r.end.line, r.end.column + 1), content
    )


def assigned_values(ctx: Analysis) -> dict[str, list[cst.BaseExpression]]:
    """Return, per name bound in the current scope, every value assigned to it.

    Augmented assignments keep a name's kind and are skipped. Bindings this does not follow
    (loop targets, unpacking, ``as`` names, walrus) appear as
    the value `None`, so that callers never mistake a partly known name for a known one.
    """
    scope = ctx.frame.node
    cache: dict[int, dict[str, list[cst.BaseExpression]]] = state(ctx, "assigned-values", dict)
    found = cache.get(id(scope))
    if found is None:
        found = cache[id(scope)] = _collect_assignments(scope)
    return found


def _collect_assignments(scope: cst.CSTNode) -> dict[str, list[cst.BaseExpression]]:
    out: dict[str, list[cst.BaseExpression]] = {}
    walk(scope, _Assignments(scope, out))  # read-only walk: scope.visit() rebuilds every node
    return out


class _Assignments(cst.CSTVisitor):
    def __init__(self, scope: cst.CSTNode, out: dict[str, list[cst.BaseExpression]]) -> None:
        self.scope = scope
        self.out = out

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.scope

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return node is self.scope

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.scope

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self.out.setdefault(t.target.value, []).append(node.value)
            else:
                _poison(t.target, self.out)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.out.setdefault(node.target.value, []).append(node.value)

    def visit_For(self, node: cst.For) -> None:
        _poison(node.target, self.out)

    def visit_AsName(self, node: cst.AsName) -> None:
        _poison(node.name, self.out)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        _poison(node.target, self.out)


def _poison(target: cst.BaseExpression, out: dict[str, list[cst.BaseExpression]]) -> None:
    """Mark names bound in a way we do not follow as of unknown kind."""
    if isinstance(target, cst.Name):
        out.setdefault(target.value, []).append(cst.Name("None"))
    elif isinstance(target, cst.Tuple | cst.List):
        for el in target.elements:
            _poison(el.value, out)
