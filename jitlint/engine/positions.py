"""Find the source range of a few nodes without libcst's position metadata pass.

libcst's ``PositionProvider`` regenerates the code while updating a line and column after
every token and recording a range object for every node, which costs several times the plain
code generation. Here each top-level statement is generated once with a state that records,
per node, only the *indices of the tokens* where its range starts and ends (the same
syntactic and whitespace-inclusive rules as ``PositionProvider``); the few wanted nodes are
then turned into lines and columns from the generated text, which is the source text.

Statements whose positions were computed can be kept in a :class:`PositionCache`: libcst
nodes are immutable, so a statement object reused by an incremental parse has the same
relative positions; only its line offset in the module changes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate
from types import TracebackType
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jitlint.analysis.cst_util import NEWLINE

_CRLF = re.compile(r"\r\n")
Span = tuple[int, int]  # token indices: where a node's range starts and ends


class _Record:
    """The ``record_syntactic_position`` context of :class:`_TokenState`, without a generator."""

    __slots__ = ("end_node", "node", "start", "start_node", "state")

    def __init__(
        self,
        state: _TokenState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start = 0

    def __enter__(self) -> None:
        self.start = len(self.state.tokens)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        spans = self.state.spans
        start = self.start if self.start_node is None else spans[id(self.start_node)][0]
        end = len(self.state.tokens) if self.end_node is None else spans[id(self.end_node)][1]
        spans[id(self.node)] = (start, end)


class _TokenState(CodegenState):
    """Code generation that records each node's range as token indices.

    Mirrors ``PositionProvidingCodegenState``: a node's syntactic range (recorded by the
    node itself, possibly hoisted from a child's) wins; otherwise the range of everything
    it generated, whitespace included.
    """

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.spans: dict[int, Span] = {}
        self._stack: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        if id(node) not in self.spans:
            self.spans[id(node)] = (start, len(self.tokens))

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _Record:
        return _Record(self, node, start_node, end_node)


class StatementPositions:
    """The node ranges of one top-level statement, relative to its first line."""

    __slots__ = ("_offsets", "_starts", "lines", "spans", "stmt")

    def __init__(self, stmt: cst.CSTNode, module: cst.Module) -> None:
        state = _TokenState(module.default_indent, module.default_newline)
        stmt._codegen(state)
        tokens = state.tokens
        code = "".join(tokens)
        self.stmt = stmt  # keeps the ids in ``spans`` valid while this object lives
        self.spans = state.spans
        self.lines = len(NEWLINE.findall(code))
        self._offsets = list(accumulate(map(len, tokens), initial=0))
        self._starts = [0, *(m.end() for m in NEWLINE.finditer(code))]
        if "\r" in code:
            # libcst counts lines token by token: a CR ending one token and an LF starting
            # the next are two line breaks there, one here. Never seen from the parser, but
            # then these positions would differ: let the caller use libcst's own.
            boundaries = set(self._offsets)
            if any(m.start() + 1 in boundaries for m in _CRLF.finditer(code)):
                raise _Unsupported

    def _position(self, token: int, line_offset: int) -> tuple[int, int]:
        offset = self._offsets[token]
        line = bisect_right(self._starts, offset)
        return line + line_offset, offset - self._starts[line - 1]

    def range(self, node_id: int, line_offset: int) -> CodeRange:
        """Return the range of a node of this statement, the statement starting after
        ``line_offset`` lines of the module."""
        start, end = self.spans[node_id]
        return CodeRange(self._position(start, line_offset), self._position(end, line_offset))


class _Unsupported(Exception):
    """The fast path cannot reproduce libcst's positions for this statement."""


class PositionCache:
    """Statement positions kept across lints of successive versions of one document."""

    def __init__(self) -> None:
        self._entries: dict[int, StatementPositions] = {}
        self._style: tuple[str, str] | None = None

    def get(self, stmt: cst.CSTNode, module: cst.Module) -> StatementPositions:
        """Return the positions of ``stmt`` (a statement of ``module``), computing them once."""
        style = (module.default_indent, module.default_newline)
        if style != self._style:  # statements are generated with the module's defaults
            self._entries.clear()
            self._style = style
        entry = self._entries.get(id(stmt))
        if entry is None or entry.stmt is not stmt:
            entry = self._entries[id(stmt)] = StatementPositions(stmt, module)
        return entry

    def retain(self, statements: Sequence[cst.CSTNode]) -> None:
        """Forget every statement but ``statements`` (the current module's)."""
        keep = {id(s) for s in statements}
        for key in [k for k in self._entries if k not in keep]:
            del self._entries[key]


def locate(
    module: cst.Module, nodes: Iterable[cst.CSTNode], cache: PositionCache | None = None
) -> dict[int, CodeRange]:
    """Return ``{id(node): range}`` for ``nodes``; line numbers refer to the whole module.

    The ranges are those of libcst's ``PositionProvider``.
    """
    wanted = {id(n) for n in nodes}
    if not wanted:
        return {}
    if id(module) in wanted:
        return _libcst_ranges(module, wanted)
    try:
        return _token_ranges(module, wanted, cache)
    except _Unsupported:
        return _libcst_ranges(module, wanted)


def _token_ranges(
    module: cst.Module, wanted: set[int], cache: PositionCache | None
) -> dict[int, CodeRange]:
    out: dict[int, CodeRange] = {}
    offset = len(module.header)  # each header line is one EmptyLine
    for stmt in module.body:
        entry = cache.get(stmt, module) if cache is not None else StatementPositions(stmt, module)
        for node_id in wanted.intersection(entry.spans):
            out[node_id] = entry.range(node_id, offset)
        if len(out) == len(wanted) and cache is None:
            break
        offset += entry.lines
    return out


def _libcst_ranges(module: cst.Module, wanted: set[int]) -> dict[int, CodeRange]:
    ranges: Any = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(n): r for n, r in ranges.items() if id(n) in wanted}
