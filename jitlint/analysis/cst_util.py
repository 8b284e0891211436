"""Walk a libcst tree without rebuilding it.

``node.visit(visitor)`` rebuilds every node it passes (``_visit_and_replace_children``), which
costs several times the parse itself. A read-only visitor needs none of that: ``walk`` calls
the same ``visit_<Node>``/``leave_<Node>`` and ``visit_<Node>_<field>``/``leave_<Node>_<field>``
hooks a ``cst.CSTVisitor`` defines, skipping whitespace, comments and punctuation, which carry
no names or expressions.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

# Node kinds that hold only layout: no rule or collector looks inside them.
_TRIVIA: tuple[type[cst.CSTNode], ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
    cst.Newline,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.Dot,
    cst.AssignEqual,
    cst.ImportStar,
)

Hook = Callable[[Any, Any], Any]  # an unbound hook: (visitor, node)
# Per (visitor class, node class): the visit/leave hooks and, per field, the field hooks.
_Plan = tuple[Hook | None, Hook | None, tuple[tuple[str, Hook | None, Hook | None], ...]]
_FIELDS: dict[type, tuple[str, ...]] = {}
# Keyed weakly by visitor class: a visitor class defined inside a function takes its plans
# with it when it goes.
_PLANS: weakref.WeakKeyDictionary[type, dict[type, _Plan]] = weakref.WeakKeyDictionary()


def _fields(node_type: type) -> tuple[str, ...]:
    names = _FIELDS.get(node_type)
    if names is None:
        names = _FIELDS[node_type] = tuple(
            f.name for f in dataclasses.fields(node_type) if not f.name.startswith("whitespace")
        )
    return names


def _plan(visitor: cst.CSTVisitor, node_type: type) -> _Plan:
    vcls = type(visitor)
    plans = _PLANS.get(vcls)
    if plans is None:
        plans = _PLANS[vcls] = {}
    plan = plans.get(node_type)
    if plan is None:
        name = node_type.__name__
        fields = tuple(
            (f, getattr(vcls, f"visit_{name}_{f}", None), getattr(vcls, f"leave_{name}_{f}", None))
            for f in _fields(node_type)
        )
        plan = (getattr(vcls, f"visit_{name}", None), getattr(vcls, f"leave_{name}", None), fields)
        plans[node_type] = plan
    return plan


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Call ``visitor``'s hooks on ``node`` and its descendants, in field order."""
    visit, leave, fields = _plan(visitor, type(node))
    if visit is not None and visit(visitor, node) is False:
        fields = ()  # libcst still calls the leave hook when a visit hook says no
    for name, visit_field, leave_field in fields:
        value = getattr(node, name)
        if visit_field is not None:
            visit_field(visitor, node)
        if isinstance(value, cst.CSTNode):
            if not isinstance(value, _TRIVIA):
                walk(value, visitor)
        elif isinstance(value, tuple | list):
            for child in value:
                if isinstance(child, cst.CSTNode) and not isinstance(child, _TRIVIA):
                    walk(child, visitor)
        if leave_field is not None:
            leave_field(visitor, node)
    if leave is not None:
        leave(visitor, node)


_LAYOUT = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
    cst.Newline,
)


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Yield ``node`` and every node below it but whitespace and comments, parents first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = []
        for name in _fields(type(current)):
            value = getattr(current, name)
            if isinstance(value, cst.CSTNode):
                if not isinstance(value, _LAYOUT):
                    children.append(value)
            elif isinstance(value, tuple | list):
                children.extend(
                    c for c in value if isinstance(c, cst.CSTNode) and not isinstance(c, _LAYOUT)
                )
        stack.extend(reversed(children))


# The newline convention of libcst's own position tracking.
NEWLINE = re.compile(r"\r\n?|\n")


_EMPTY_MODULE = cst.Module([])


def literal(expr: cst.BaseExpression, default: object = None) -> object:
    """Return the Python value of a literal expression (``(0, 1)``, ``"x"``), or ``default``."""
    try:
        return ast.literal_eval(_EMPTY_MODULE.code_for_node(expr).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return default


def source_encoding(source: bytes) -> str:
    """Return the encoding a Python file declares (PEP 263), utf-8 by default.

    Raises SyntaxError for a bad coding cookie or BOM, as the tokenizer does.
    """
    return tokenize.detect_encoding(io.BytesIO(source).readline)[0]


def decode_source(source: bytes) -> str:
    """Decode a Python file's bytes with its declared encoding (errors raise)."""
    return source.decode(source_encoding(source))
