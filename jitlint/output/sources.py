"""Source lines for the formats that show code, and the one-line head every format shares."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from jitlint.analysis.cst_util import NEWLINE, decode_source
from jitlint.fixes.apply import applicable
from jitlint.model import Finding


class Sources:
    """Read source lines for findings, once per file; ``texts`` overrides files (stdin)."""

    def __init__(self, texts: Mapping[str, str] | None = None) -> None:
        self._texts = dict(texts or {})
        self._lines: dict[str, list[str]] = {}
        self.unsafe = False  # whether unsafe fixes count as applicable for the [*] mark

    def line(self, filename: str, row: int) -> str:
        """Return line ``row`` (1-based) of ``filename`` without its newline, or ''."""
        lines = self._lines.get(filename)
        if lines is None:
            lines = self._lines[filename] = NEWLINE.split(self._text(filename))
        return lines[row - 1] if 0 < row <= len(lines) else ""

    def add(self, filename: str, data: bytes) -> None:
        """Use ``data`` as the content of ``filename`` (source read from stdin)."""
        self._texts[filename] = _decode(data)
        self._lines.pop(filename, None)

    def _text(self, filename: str) -> str:
        if filename in self._texts:
            return self._texts[filename]
        try:
            return _decode(Path(filename).read_bytes())
        except OSError:
            return ""


def _decode(data: bytes) -> str:
    try:
        return decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return ""


def head(f: Finding, unsafe: bool) -> str:
    fixable = " [*]" if applicable(f, unsafe) else ""
    return f"{f.filename}:{f.location.row}:{f.location.column}: {f.code}{fixable} {f.message}"
