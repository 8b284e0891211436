"""A small forward walk over one scope in execution order, for rules that track objects.

Rules such as PRNG-key reuse and donated-buffer reuse follow a few names through a function:
what happened to them on every path that reaches a statement. ``Flow`` walks statements in
order, copies the state into both arms of an ``if``, joins them afterwards (paths that
``return`` or ``raise`` do not join), and walks loop bodies twice so that what one iteration
leaves behind reaches the start of the next. Subclasses say what reading a name, calling a
function and binding a name do to the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast

import libcst as cst

from jitlint.analysis.knowledge import STATIC_ATTRS
from jitlint.analysis.scopes import suite_statements

S = TypeVar("S", bound=dict[str, Any])
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# What `_part` does with a node, by its class (libcst's abstract bases check slowly).
_EXPRESSION, _HOLDER = 1, 2
_HOLDERS = (
    cst.BaseElement,
    cst.BaseDictElement,
    cst.SubscriptElement,
    cst.Index,
    cst.Slice,
    cst.ComparisonTarget,
    cst.FormattedStringExpression,
    cst.Arg,
)
_PARTS: dict[type, int] = {}


class Flow(Generic[S]):
    """Walk one scope's statements in execution order with a copyable state."""

    def __init__(self) -> None:
        # Per enclosing loop: (is a `continue`, state) of each jump out of the body.
        self._loop_exits: list[list[tuple[bool, S]]] = []
        self.statement: cst.BaseSmallStatement | None = None  # the one being walked
        self.tests: list[cst.BaseExpression] = []  # of the `if`s whose bodies are walked

    # What a subclass defines ------------------------------------------------------
    def copy(self, s: S) -> S:
        """Return an independent copy of a state."""
        return s.copy()  # type: ignore[return-value]

    def join(self, a: S, b: S) -> S:
        """Return the state after paths in states ``a`` and ``b`` meet."""
        raise NotImplementedError

    def on_name(self, node: cst.Name, s: S) -> None:
        """Handle a read of a name."""

    def on_call(self, node: cst.Call, s: S) -> None:
        """Handle a call, after its arguments were evaluated."""

    def on_bind(self, name: str, node: cst.CSTNode, value: cst.BaseExpression | None, s: S) -> None:
        """Handle ``name`` being (re)bound by ``node`` to ``value`` (None when not simple)."""

    def on_return(self, node: cst.Return, s: S) -> None:
        """Handle a ``return``, after its value was evaluated."""

    # Statements --------------------------------------------------------------------
    def run(self, scope: cst.CSTNode, s: S) -> None:
        """Walk the body of a function, lambda or module."""
        if isinstance(scope, cst.FunctionDef):
            self.block(suite_statements(scope.body), s)
        elif isinstance(scope, cst.Lambda):
            self.expr(scope.body, s)
        elif isinstance(scope, cst.Module):
            self.block(scope.body, s)

    def _join_all(self, states: Sequence[S | None]) -> S | None:
        out: S | None = None
        for st in states:
            if st is not None:
                out = st if out is None else self.join(out, st)
        return out

    def block(self, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement], s: S) -> S | None:
        """Walk statements; return the state at the end, or None if control never gets there."""
        current: S | None = s
        for stmt in stmts:
            if current is None:
                return None
            current = self.stmt(stmt, current)
        return current

    def stmt(self, st: cst.BaseStatement | cst.BaseSmallStatement, s: S) -> S | None:
        """Walk one statement."""
        if type(st) is cst.SimpleStatementLine:
            return self.block(st.body, s)
        if isinstance(st, cst.BaseSmallStatement):
            return self._small(st, s)
        self.statement = None  # a compound statement's test or header is no small statement
        if isinstance(st, cst.If):
            self.expr(st.test, s)
            self.tests.append(st.test)
            try:
                body = self.block(suite_statements(st.body), self.copy(s))
            finally:
                self.tests.pop()
            if st.orelse is None:
                other: S | None = s
            elif isinstance(st.orelse, cst.If):
                other = self.stmt(st.orelse, self.copy(s))
            else:
                other = self.block(suite_statements(st.orelse.body), self.copy(s))
            return self._join_all([body, other])
        if isinstance(st, cst.For | cst.While):
            return self._loop(st, s)
        if isinstance(st, cst.With):
            for item in st.items:
                self.expr(item.item, s)
                if item.asname is not None:
                    self.bind(item.asname.name, None, s)
            return self.block(suite_statements(st.body), s)
        if isinstance(st, cst.Try | cst.TryStar):
            entry = self.copy(s)
            after = self.block(suite_statements(st.body), s)
            if after is not None and st.orelse is not None:
                after = self.block(suite_statements(st.orelse.body), after)
            ends = [after]
            for h in st.handlers:
                hs = self.copy(entry)
                if h.name is not None:
                    self.bind(h.name.name, None, hs)
                ends.append(self.block(suite_statements(h.body), hs))
            joined = self._join_all(ends)
            if st.finalbody is not None and joined is not None:
                joined = self.block(suite_statements(st.finalbody.body), joined)
            return joined
        if isinstance(st, cst.FunctionDef | cst.ClassDef):
            for dec in st.decorators:
                self.expr(dec.decorator, s)
            self.on_bind(st.name.value, st, None, s)
            return s
        if isinstance(st, cst.Match):
            self.expr(st.subject, s)
            return self._join_all(
                [s, *(self.block(suite_statements(c.body), self.copy(s)) for c in st.cases)]
            )
        return s

    def _loop(self, st: cst.For | cst.While, s: S) -> S | None:
        if isinstance(st, cst.For):
            self.expr(st.iter, s)
        entry = self.copy(s)
        state = s
        breaks: list[S | None] = []
        for _ in range(2):  # the second pass sees what the first iteration left behind
            if isinstance(st, cst.While):
                self.expr(st.test, state)
            elif isinstance(st, cst.For):
                self.bind(st.target, None, state)
            self._loop_exits.append([])
            end = self.block(suite_statements(st.body), state)
            exits = self._loop_exits.pop()
            breaks = [e for is_continue, e in exits if not is_continue]
            joined = self._join_all([end, *(e for is_continue, e in exits if is_continue)])
            state = self.copy(entry) if joined is None else self.join(self.copy(entry), joined)
        if joined is not None and _runs_at_least_once(st):
            state = joined  # `for _ in range(4):`: never skipped, so the entry is behind it
        after: S | None = state
        if st.orelse is not None:
            after = self.block(suite_statements(st.orelse.body), state)
        return self._join_all([after, *breaks])

    def _small(self, st: cst.BaseSmallStatement, s: S) -> S | None:
        self.statement = st
        if isinstance(st, cst.Assign):
            self.expr(st.value, s)
            for t in st.targets:
                self.bind(t.target, st.value, s)
        elif isinstance(st, cst.AnnAssign):
            if st.value is not None:
                self.expr(st.value, s)
                self.bind(st.target, st.value, s)
        elif isinstance(st, cst.AugAssign):
            self.expr(st.target, s)
            self.expr(st.value, s)
            self.bind(st.target, None, s)
        elif isinstance(st, cst.Expr):
            self.expr(st.value, s)
        elif isinstance(st, cst.Return):
            if st.value is not None:
                self.expr(st.value, s)
            self.on_return(st, s)
            return None
        elif isinstance(st, cst.Raise):
            if st.exc is not None:
                self.expr(st.exc, s)
            return None
        elif isinstance(st, cst.Continue | cst.Break):
            if self._loop_exits:
                self._loop_exits[-1].append((isinstance(st, cst.Continue), self.copy(s)))
            return None
        elif isinstance(st, cst.Assert):
            self.expr(st.test, s)
        elif isinstance(st, cst.Del):
            self.bind(st.target, None, s)
        return s

    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, s: S) -> None:
        """Bind an assignment target: names (and attributes of `self`, named `self.x`) are
        rebound; subscripts and other attributes are read."""
        if isinstance(target, cst.Name):
            self.on_bind(target.value, target, value, s)
        elif isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                self.bind(el.value, None, s)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, None, s)
        elif isinstance(target, cst.Subscript):
            self.expr(target.value, s)
            for element in target.slice:
                self._part(element.slice, s)
        elif isinstance(target, cst.Attribute):
            self.expr(target.value, s)
            if isinstance(target.value, cst.Name) and target.value.value == "self":
                self.on_bind(f"self.{target.attr.value}", target, value, s)  # `self.key = k`

    # Expressions -------------------------------------------------------------------
    def expr(self, e: cst.CSTNode, s: S) -> None:
        """Walk an expression in evaluation order."""
        if type(e) is cst.Name:
            self.on_name(e, s)
        elif type(e) is cst.Call:
            self.expr(e.func, s)
            for a in e.args:
                self.expr(a.value, s)
            self.on_call(e, s)
        elif type(e) is cst.Attribute:
            if not (isinstance(e.value, cst.Name) and e.attr.value in STATIC_ATTRS):
                self.expr(e.value, s)
        elif type(e) is cst.IfExp:
            self.expr(e.test, s)
            body, other = self.copy(s), self.copy(s)
            self.expr(e.body, body)
            self.expr(e.orelse, other)
            merged = self.join(body, other)
            s.clear()
            s.update(merged)
        elif type(e) is cst.Lambda:
            return  # runs later, if at all
        elif isinstance(e, _COMPREHENSIONS):
            self._comprehension(e, s)
        elif type(e) is cst.Comparison and any(
            isinstance(c.operator, cst.Is | cst.IsNot) for c in e.comparisons
        ):
            return  # identity tests touch no data
        elif isinstance(e, cst.BaseExpression | cst.BaseElement | cst.BaseDictElement):
            for child in e.children:
                self._part(child, s)

    def _part(self, node: cst.CSTNode, s: S) -> None:
        kind = type(node)
        part = _PARTS.get(kind)
        if part is None:
            part = _PARTS[kind] = (
                _EXPRESSION
                if issubclass(kind, cst.BaseExpression)
                else _HOLDER
                if issubclass(kind, _HOLDERS)
                else 0
            )
        if part == _EXPRESSION:
            self.expr(cast(cst.BaseExpression, node), s)
        elif part == _HOLDER:
            for child in node.children:
                self._part(child, s)

    def _comprehension(self, e: cst.BaseExpression, s: S) -> None:
        assert isinstance(e, _COMPREHENSIONS)
        self.expr(e.for_in.iter, s)
        # The element runs once per item: walk it twice, like a loop body.
        for _ in range(2):
            comp: cst.CompFor | None = e.for_in
            while comp is not None:
                if comp is not e.for_in:
                    self.expr(comp.iter, s)
                self.bind(comp.target, None, s)
                for cond in comp.ifs:
                    self.expr(cond.test, s)
                comp = comp.inner_for_in
            if isinstance(e, cst.DictComp):
                self.expr(e.key, s)
                self.expr(e.value, s)
            else:
                self.expr(e.elt, s)


def _runs_at_least_once(st: cst.For | cst.While) -> bool:
    """Tell whether a loop is taken to run its body at least once: a `for` loop, unless it
    runs over an empty display or an empty `range` of integer literals. A loop over data
    (`for perm in perms:`) or over a count a caller gives (`range(epochs)`) runs in every
    real call; a path that skips it is one no run takes (a key the loop splits anew is not
    the key before it afterwards). A `while` loop may not run."""
    if not isinstance(st, cst.For):
        return False
    it = st.iter
    if isinstance(it, cst.List | cst.Tuple):
        return bool(it.elements)
    if not isinstance(it, cst.Call) or not (
        isinstance(it.func, cst.Name) and it.func.value == "range"
    ):
        return True
    bounds: list[int] = []
    for a in it.args:
        if a.keyword is not None or a.star or not isinstance(a.value, cst.Integer):
            return True
        bounds.append(int(a.value.value.replace("_", ""), 0))
    try:
        return 1 <= len(bounds) <= 3 and len(range(*bounds)) > 0
    except ValueError:
        return False
