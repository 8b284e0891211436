"""Find the source range of a few nodes without computing positions for the whole module.

libcst's ``PositionProvider`` regenerates the whole module while tracking every node's
position, which costs more than parsing it. Findings are rare, so this resolves positions only
inside the top-level statements that hold a reported node, and finds where each such statement
starts by counting the newlines of the plain code generated for the statements before it.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jitlint.analysis.cst_util import NEWLINE, descendants


def _lines_in(code: str) -> int:
    return len(NEWLINE.findall(code))


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, CodeRange]:
    """Return ``{id(node): range}`` for ``nodes``; line numbers refer to the whole module."""
    wanted = {id(n) for n in nodes}
    out: dict[int, CodeRange] = {}
    if not wanted:
        return out
    if id(module) in wanted:
        ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        return {id(n): r for n, r in ranges.items() if id(n) in wanted}
    offset = len(module.header)  # each header line is one EmptyLine
    for stmt in module.body:
        code = module.code_for_node(stmt)
        inside = [n for n in descendants(stmt) if id(n) in wanted]
        if inside:
            single = module.with_changes(body=(stmt,), header=(), footer=())
            ranges = MetadataWrapper(single, unsafe_skip_copy=True).resolve(PositionProvider)
            for node in inside:
                r = ranges[node]
                out[id(node)] = CodeRange(
                    (r.start.line + offset, r.start.column), (r.end.line + offset, r.end.column)
                )
            if len(out) == len(wanted):
                break
        offset += _lines_in(code)
    return out
