"""Apply fixes to text: non-overlapping edits, and only combinations that still parse."""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst

from jitlint.analysis.cst_util import NEWLINE
from jitlint.model import Applicability, Finding, Fix, Location


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in NEWLINE.finditer(text))]


def apply(text: str, fixes: Sequence[Fix]) -> tuple[str, int]:
    """Apply every fix whose edits do not overlap an earlier one; return (text, count)."""
    starts = _line_starts(text)

    def offset(loc: Location) -> int:
        if loc.row > len(starts):
            return len(text)
        return min(starts[loc.row - 1] + loc.column - 1, len(text))

    taken: list[tuple[int, int, str]] = []
    applied = 0
    ordered = sorted(fixes, key=lambda f: min((e.start, e.end) for e in f.edits))
    for fix in ordered:
        spans = [(offset(e.start), offset(e.end), e.content) for e in fix.edits]
        # An edit identical to one already taken (the same import added by two fixes) is shared.
        new = [s for s in spans if s not in taken]
        if any(a < d and c < b for a, b, _ in new for c, d, _ in taken):
            continue  # overlaps another fix: the next round re-lints and retries it
        taken.extend(new)
        applied += 1
    out: list[str] = []
    pos = 0
    for start, end, content in sorted(taken, key=lambda s: (s[0], s[1])):
        if start == len(text) and text and not NEWLINE.match(text[-1]) and content.strip():
            content = _newline_of(text) + content.rstrip("\r\n")
        out.append(text[pos:start])
        out.append(content)
        pos = end
    out.append(text[pos:])
    return "".join(out), applied


def _newline_of(text: str) -> str:
    m = NEWLINE.search(text)
    return m.group() if m else "\n"


def parses(text: str) -> bool:
    """Tell whether ``text`` is valid Python for both libcst and CPython."""
    try:
        cst.parse_module(text)
        ast.parse(text)
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def apply_checked(text: str, todo: list[Fix]) -> tuple[str, int]:
    """Apply ``todo`` but never return text that no longer parses; return (text, count)."""
    new, count = apply(text, todo)
    if count and parses(new):
        return new, count
    # Some fix broke the file: keep the fixes that leave it parseable on their own.
    good = [fix for fix in todo if parses(apply(text, [fix])[0])]
    new, count = apply(text, good)
    if count and parses(new):
        return new, count
    for fix in good:  # together they still break it: one per round, re-linting in between
        new, count = apply(text, [fix])
        if count:
            return new, count
    return text, 0


def applicable(f: Finding, unsafe: bool) -> bool:
    """Tell whether ``--fix`` (with ``--unsafe-fixes`` when ``unsafe``) would fix ``f``."""
    return f.fix is not None and (unsafe or f.fix.applicability is Applicability.SAFE)
