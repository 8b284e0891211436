"""Small helpers shared by the rule modules: call arguments, per-file state, text edits."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jitlint.model import Edit, Location, Mode

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
        elif keyword is not None and a.keyword.value == keyword:
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
