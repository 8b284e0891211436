"""Walk a libcst tree without rebuilding it.

``node.visit(visitor)`` rebuilds every node it passes (``_visit_and_replace_children``), which
costs several times the parse itself. A read-only visitor needs none of that: ``walk`` calls
the same ``visit_<Node>``/``leave_<Node>`` and ``visit_<Node>_<field>``/``leave_<Node>_<field>``
hooks a ``cst.CSTVisitor`` defines, skipping whitespace, comments and punctuation, which carry
no names or expressions.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import gc
import io
import re
import threading
import tokenize
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

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
        kind = _WALKED.get(type(value))
        if kind is None:
            kind = _classify(type(value), _TRIVIA, _WALKED)
        if kind == _NODE:
            walk(value, visitor)
        elif kind == _SEQUENCE:
            for child in value:
                kind = _WALKED.get(type(child))
                if kind is None:
                    kind = _classify(type(child), _TRIVIA, _WALKED)
                if kind == _NODE:
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


# What a field value is, by its type: libcst nodes are ABCs, so ``isinstance`` on them is slow,
# and a tree holds few distinct types. _OTHER is neither a wanted node nor a sequence.
_OTHER, _NODE, _SEQUENCE = 0, 1, 2
_WALKED: dict[type, int] = {}  # for ``walk`` (skips _TRIVIA)
_DESCENDED: dict[type, int] = {}  # for ``descendants`` (skips _LAYOUT)


def _classify(kind: type, skipped: tuple[type, ...], table: dict[type, int]) -> int:
    if issubclass(kind, cst.CSTNode):
        found = _OTHER if issubclass(kind, skipped) else _NODE
    elif issubclass(kind, tuple | list):
        found = _SEQUENCE
    else:
        found = _OTHER
    table[kind] = found
    return found


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Yield ``node`` and every node below it but whitespace and comments, parents first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(child_nodes(current)))


def variable_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """Yield the names under ``node`` that name variables: not the attribute of `obj.attr`,
    not the keyword of `f(name=...)`."""
    skipped: set[int] = set()
    for current in descendants(node):
        kind = type(current)
        if kind is cst.Attribute:
            skipped.add(id(cast(cst.Attribute, current).attr))
        elif kind is cst.Arg:
            keyword = cast(cst.Arg, current).keyword
            if keyword is not None:
                skipped.add(id(keyword))
        elif kind is cst.Name and id(current) not in skipped:
            yield cast(cst.Name, current)


def only_called(fn: cst.FunctionDef, name: str) -> bool:
    """Tell whether ``fn``'s body reads its parameter ``name`` only to call it (`fn(*args)`):
    never stores, returns or hands it on, and never binds the name to anything else."""
    called: set[int] = set()
    for node in descendants(fn.body):
        if type(node) is cst.Call:
            called.add(id(node.func))
    uses = [n for n in variable_names(fn.body) if n.value == name]
    return bool(uses) and all(id(n) in called for n in uses)


# What holds statements: a statement, a suite, and the clauses of compound statements.
# Expressions hold none (a lambda's body is an expression), so ``statements`` skips them.
_STATEMENT_HOLDERS = (
    cst.BaseSuite,
    cst.BaseStatement,
    cst.BaseSmallStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)
_STATEMENTS: dict[type, int] = {}  # for ``statements``: _NODE for the holders above


def _concrete(base: type) -> frozenset[type]:
    found: set[type] = set()
    pending = [base]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if not cls.__subclasses__():
            found.add(cls)
    return frozenset(found)


# The small statements' classes: `type(s) in SMALL_STATEMENTS` answers what
# `isinstance(s, cst.BaseSmallStatement)` does without the abstract class's slow check.
SMALL_STATEMENTS = _concrete(cst.BaseSmallStatement)


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Return ``node``'s children but whitespace and comments, in field order."""
    out = []
    kinds = _DESCENDED
    for name in _fields(type(node)):
        value = getattr(node, name)
        kind = kinds.get(type(value))
        if kind is None:
            kind = _classify(type(value), _LAYOUT, kinds)
        if kind == _NODE:
            out.append(value)
        elif kind == _SEQUENCE:
            for c in value:
                kind = kinds.get(type(c))
                if kind is None:
                    kind = _classify(type(c), _LAYOUT, kinds)
                if kind == _NODE:
                    out.append(c)
    return out


def nodes_under(node: cst.CSTNode, marked: dict[type, str], wanted: type) -> list[cst.CSTNode]:
    """Return the nodes of exactly type ``wanted`` that lie in a marked field of an ancestor
    (``{cst.For: "body"}``: inside some loop body), in source order, visiting each node once
    (nested marks are not walked again)."""
    return nodes_under_split(node, marked, wanted, _never)[0]


def _never(node: cst.CSTNode) -> bool:
    return False


def nodes_under_split(
    node: cst.CSTNode,
    marked: dict[type, str],
    wanted: type,
    exempt: Callable[[cst.CSTNode], bool],
) -> tuple[list[cst.CSTNode], list[bool]]:
    """Like `nodes_under`, and for each node found whether some marked ancestor holding it
    is not ``exempt`` (`exempt(loop)`: a loop that does not count, a sweep over constants);
    one walk."""
    out: list[cst.CSTNode] = []
    counted: list[bool] = []
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(node, False, False)]
    kinds = _DESCENDED
    while stack:
        current, inside, real = stack.pop()
        if inside and type(current) is wanted:
            out.append(current)
            counted.append(real)
        field = None if real else marked.get(type(current))
        real_here = field is not None and not exempt(current)
        if field is not None and not real_here and inside:
            field = None  # already inside an exempt loop: only a counted one changes anything
        children: list[tuple[cst.CSTNode, bool, bool]] = []
        for name in _fields(type(current)):
            value = getattr(current, name)
            hit = name == field
            flag = inside or hit
            flag_real = real or (hit and real_here)
            kind = kinds.get(type(value))
            if kind is None:
                kind = _classify(type(value), _LAYOUT, kinds)
            if kind == _NODE:
                children.append((value, flag, flag_real))
            elif kind == _SEQUENCE:
                for c in value:
                    kind = kinds.get(type(c))
                    if kind is None:
                        kind = _classify(type(c), _LAYOUT, kinds)
                    if kind == _NODE:
                        children.append((c, flag, flag_real))
        stack.extend(reversed(children))
    return out, counted


def statement_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Return the children of ``node`` that are or hold statements, in field order."""
    out = []
    kinds = _STATEMENTS
    for name in _fields(type(node)):
        value = getattr(node, name)
        for c in value if type(value) in (tuple, list) else (value,):
            kind = kinds.get(type(c))
            if kind is None:
                kind = kinds[type(c)] = _NODE if isinstance(c, _STATEMENT_HOLDERS) else _OTHER
            if kind == _NODE:
                out.append(c)
    return out


_STATEMENT_BASES = (cst.BaseStatement, cst.BaseSmallStatement)
_IS_STATEMENT: dict[type, bool] = {}  # by node class: libcst's abstract bases check slowly


def statements(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Yield every statement at or below ``node`` (nested functions and classes included),
    parents first, without visiting expressions: many times cheaper than ``descendants``
    for a question about assignments, ``del`` or ``if`` statements."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        is_statement = _IS_STATEMENT.get(kind)
        if is_statement is None:
            is_statement = _IS_STATEMENT[kind] = issubclass(kind, _STATEMENT_BASES)
        if is_statement:
            yield current
        stack.extend(reversed(statement_children(current)))


def own_statements(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Yield the statements of ``node``'s own body in source order (a block's statement
    before those it holds; the small statements of a line, not the line), leaving out the
    functions and classes it defines and what they hold."""
    for child in statement_children(node):
        kind = type(child)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            yield from cast(cst.SimpleStatementLine | cst.SimpleStatementSuite, child).body
            continue
        if isinstance(child, cst.BaseStatement):
            yield child
        yield from own_statements(child)


_PARSE_LOCK = threading.Lock()

# libcst's native parser nests `a and b and c ...` one level per operator and crashes the
# process (a stack overflow) somewhere between 3,000 and 10,000 of them, where CPython
# keeps the chain flat and compiles it. Counted over the file: a bound on any one chain.
MAX_BOOL_OPERATORS = 2_500


def parser_refuses(data: bytes) -> str | None:
    """Say why libcst's parser must not see ``data`` although CPython compiles it (None: it
    may). Checked after ``compile``, which already refuses deeper nesting of other kinds."""
    count = data.count(b" and ") + data.count(b" or ")
    if count > MAX_BOOL_OPERATORS:
        return (
            f"more than {MAX_BOOL_OPERATORS} `and`/`or` operators, which the parser "
            "cannot take in one expression"
        )
    return None


MAX_SWEEP = 8
_SWEPT_CONSTANTS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)


def constant_sweep(loop: cst.CSTNode) -> bool:
    """Tell whether ``loop`` (a `for` statement or a comprehension) runs over a display of a
    few constants only (a configuration each)."""
    kind = type(loop)
    if kind is cst.For:
        it = cast(cst.For, loop).iter
    elif kind is cst.While:
        return False
    else:
        for_in = cast(cst.ListComp | cst.GeneratorExp | cst.SetComp, loop).for_in
        if for_in.inner_for_in is not None:
            return False
        it = for_in.iter
    if type(it) not in (cst.List, cst.Tuple, cst.Set):
        return False
    elements = cast(cst.List | cst.Tuple | cst.Set, it).elements
    return 0 < len(elements) <= MAX_SWEEP and all(
        type(e) is cst.Element and _swept_constant(e.value) for e in elements
    )


def _swept_constant(value: cst.BaseExpression) -> bool:
    if type(value) is cst.Tuple:  # `for lr, steps in ((0.1, 10), (0.01, 100)):`
        return all(
            type(e) is cst.Element and type(e.value) is not cst.Tuple and _swept_constant(e.value)
            for e in value.elements
        )
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression  # `-1`
    if type(value) is cst.Name:
        return value.value in ("True", "False", "None")  # `for reset in (False, True):`
    return isinstance(value, _SWEPT_CONSTANTS)


STRING_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def strings_only(expr: cst.BaseExpression) -> bool:
    """Tell whether ``expr`` is a display of string literals only (`["a", "b"]`)."""
    if not isinstance(expr, cst.List | cst.Tuple | cst.Set) or not expr.elements:
        return False
    return all(
        type(el) is cst.Element and isinstance(el.value, STRING_LITERALS) for el in expr.elements
    )


def is_stub(fn: cst.FunctionDef) -> bool:
    """Tell whether ``fn`` is an abstract method's stub that a subclass writes: decorated
    `@abstractmethod`, or with nothing in its body but a docstring, `pass`, `...` or
    `raise NotImplementedError`."""
    for dec in fn.decorators:
        target = dec.decorator
        if isinstance(target, cst.Attribute):
            target = target.attr
        if isinstance(target, cst.Name) and target.value == "abstractmethod":
            return True
    body = fn.body
    if not isinstance(body, cst.IndentedBlock):
        body_statements: Sequence[cst.CSTNode] = [body]
    else:
        body_statements = body.body
    for stmt in body_statements:
        smalls = (
            stmt.body
            if isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite)
            else None
        )
        if smalls is None:
            return False
        for small in smalls:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(
                small.value, cst.SimpleString | cst.ConcatenatedString | cst.Ellipsis
            ):
                continue
            if isinstance(small, cst.Raise) and _raises_not_implemented(small):
                continue
            return False
    return True


def _raises_not_implemented(stmt: cst.Raise) -> bool:
    exc = stmt.exc
    if isinstance(exc, cst.Call):
        exc = exc.func
    return isinstance(exc, cst.Name) and exc.value == "NotImplementedError"


def root_name(expr: cst.BaseExpression) -> str | None:
    """Return the name an attribute or item chain starts from (`f` of `f.a[0].b`)."""
    while isinstance(expr, cst.Attribute | cst.Subscript):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def passed_to(positional: list[str], call: cst.Call) -> list[tuple[str, cst.BaseExpression]] | None:
    """Return the parameters ``call`` binds with what it passes them (None: it unpacks
    `*args` or `**kwargs`, which may bind anything)."""
    out: list[tuple[str, cst.BaseExpression]] = []
    count = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            out.append((arg.keyword.value, arg.value))
        elif count < len(positional):
            out.append((positional[count], arg.value))
        count += arg.keyword is None
    return out


# What a node does after ``__init__`` while the parser builds it: nothing that matters. A
# C function that takes the node and ignores it, not a Python one: the parser builds
# millions of nodes, and a Python call for each costs a tenth of the parse.
_UNCHECKED = object.__sizeof__


def parse_module(text: str) -> cst.Module:
    """Return ``libcst.parse_module(text)``, the same tree, about a quarter faster.

    libcst validates every node it constructs (``CSTNode.__post_init__``), the parser's too,
    though what the parser builds from source is valid by construction; libcst's own
    comment there says validation could be skipped when parsing. It is skipped here, for
    the parse only: nodes made anywhere else (fixes) are still validated.
    The cycle collector is paused while the parser builds the tree (``collector_paused``).
    """
    with _PARSE_LOCK:
        checked = cst.CSTNode.__post_init__
        cst.CSTNode.__post_init__ = _UNCHECKED  # type: ignore[method-assign, assignment]
        try:
            with collector_paused():
                return cst.parse_module(text)
        finally:
            cst.CSTNode.__post_init__ = checked  # type: ignore[method-assign]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a parser builds a tree (libcst's, or ``ast``'s
    for ``compile``): a tree has no cycles, and each collection its allocations trigger
    rescans the nodes built so far."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


# The newline convention of libcst's own position tracking.
NEWLINE = re.compile(r"\r\n?|\n")


_EMPTY_MODULE = cst.Module([])


def is_main_guard(node: cst.If) -> bool:
    """Tell whether ``node`` is ``if __name__ == "__main__":`` (either way round)."""
    test = node.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    [target] = test.comparisons
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = {_main_side(test.left), _main_side(target.comparator)}
    return sides == {"name", "main"}


def _main_side(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name) and expr.value == "__name__":
        return "name"
    if isinstance(expr, cst.SimpleString) and expr.evaluated_value == "__main__":
        return "main"
    return None


NOT_LITERAL = object()  # what ``literal(expr, NOT_LITERAL)`` returns for a non-literal


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


# ``node.children`` runs libcst's rebuilding visit. The order it gives is fixed per node type
# once it is known which fields hold something, so it is learned from libcst once per
# (type, fields present) and replayed with plain attribute reads.
_ALL_FIELDS: dict[type, tuple[str, ...]] = {}
_ORDERS: dict[tuple[type, tuple[bool, ...]], tuple[str, ...] | None] = {}


_ANY: dict[type, int] = {}  # for ``children`` (skips nothing)


def _holds_nodes(value: object) -> bool:
    """Tell whether a field holds a node or a non-empty sequence (libcst's hold only nodes)."""
    kind = _ANY.get(type(value))
    if kind is None:
        kind = _classify(type(value), (), _ANY)
    return kind == _NODE or (kind == _SEQUENCE and len(value) > 0)  # type: ignore[arg-type]


def _learn_order(node: cst.CSTNode, names: tuple[str, ...]) -> tuple[str, ...] | None:
    """Return the fields whose nodes make ``node.children``, in its order (None: cannot)."""
    owner: dict[int, str] = {}
    for name in names:
        value = getattr(node, name)
        for v in value if isinstance(value, tuple | list) else (value,):
            if isinstance(v, cst.CSTNode):
                owner.setdefault(id(v), name)
    order: list[str] = []
    for child in node.children:
        name = owner.get(id(child), "")
        if not name:
            return None
        if not order or order[-1] != name:
            if name in order:
                return None  # a field's nodes not together: not a replayable order
            order.append(name)
    out = tuple(order)
    return out if _replay(node, out) == list(node.children) else None


def _replay(node: cst.CSTNode, order: tuple[str, ...]) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for name in order:
        value = getattr(node, name)
        if type(value) in (tuple, list):
            out.extend(value)
        else:
            out.append(value)
    return out


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """Return ``node.children`` (every child node, whitespace too, in lexical order), fast."""
    kind = type(node)
    names = _ALL_FIELDS.get(kind)
    if names is None:
        names = _ALL_FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    key = (kind, tuple(_holds_nodes(getattr(node, n)) for n in names))
    if key in _ORDERS:
        order = _ORDERS[key]
    else:
        order = _ORDERS[key] = _learn_order(node, names)
    if order is None:
        return node.children
    return _replay(node, order)
