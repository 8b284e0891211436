"""Helpers for tests that compare findings with inline `# JIT101` marks."""

from __future__ import annotations

import re

from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings

_MARK = re.compile(r"#.*?\b(JIT\d{3})\b")


def marked(source: str, code: str | None = None) -> set[tuple[int, str]]:
    """Return the (line, code) pairs marked in ``source``."""
    out = set()
    for i, line in enumerate(source.splitlines(), start=1):
        if "#" not in line:
            continue
        for found in _MARK.findall(line[line.index("#") :]):
            if code is None or found == code:
                out.add((i, found))
    return out


def reported(source: str, code: str | None = None, filename: str = "case.py"):
    """Return the (line, code) pairs jitlint reports on ``source``, and the raw result."""
    result = lint_source(filename, source.encode(), Settings())
    assert result.errors == []
    got = {(f.location.row, f.code) for f in result.findings}
    if code is not None:
        got = {g for g in got if g[1] == code}
    return got, result
