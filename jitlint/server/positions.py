"""Translate between jitlint's positions and the client's.

Findings count rows from 1 and columns from 1 in code points; LSP counts both from 0 and
columns in the code units of the negotiated encoding (UTF-16 unless the client offers another).
Lines end at ``\\r\\n``, ``\\r`` or ``\\n`` only, as in LSP and in the parser: a form feed or a
``\\u2028`` inside a line does not start a new one.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lsprotocol import types

_NEWLINE = re.compile(r"\r\n|\r|\n")


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class LineIndex:
    """Index one text's lines once, then convert positions both ways."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        starts = [0]
        ends = []
        for match in _NEWLINE.finditer(text):
            ends.append(match.start())
            starts.append(match.end())
        ends.append(len(text))
        self._starts = starts
        self._ends = ends

    @property
    def line_count(self) -> int:
        """Return the number of lines (a final newline opens one more, empty line)."""
        return len(self._starts)

    def line(self, row: int) -> str:
        """Return line ``row`` (1-based) without its line ending; '' past the end."""
        if not 1 <= row <= len(self._starts):
            return ""
        return self.text[self._starts[row - 1] : self._ends[row - 1]]

    def line_end(self, row: int) -> int:
        """Return the 1-based column just past the last character of line ``row``."""
        return len(self.line(row)) + 1

    def offset(self, row: int, column: int) -> int:
        """Return the string offset of a 1-based (row, column), clamped into the text."""
        if row > len(self._starts):
            return len(self.text)
        row = max(row, 1)
        start, end = self._starts[row - 1], self._ends[row - 1]
        return min(start + max(column, 1) - 1, end)

    def location(self, offset: int) -> tuple[int, int]:
        """Return the 1-based (row, column) of a string offset."""
        offset = min(max(offset, 0), len(self.text))
        row = bisect_right(self._starts, offset)
        return row, offset - self._starts[row - 1] + 1

    def to_lsp(self, row: int, column: int) -> types.Position:
        """Convert a 1-based code-point position to an LSP position."""
        if row > len(self._starts):  # past the end: the end of the last line
            row, column = len(self._starts), self.line_end(len(self._starts))
        row = max(row, 1)
        prefix = self.line(row)[: max(column, 1) - 1]
        return types.Position(line=row - 1, character=_units(prefix, self.encoding))

    def from_lsp(self, position: types.Position) -> tuple[int, int]:
        """Convert an LSP position to a 1-based code-point position (clamped to the line)."""
        row = position.line + 1
        if row > len(self._starts):
            return len(self._starts), self.line_end(len(self._starts))
        line = self.line(row)
        if self.encoding == types.PositionEncodingKind.Utf32:
            return row, min(position.character, len(line)) + 1
        units = 0
        for i, char in enumerate(line):
            if units >= position.character:
                return row, i + 1
            units += _units(char, self.encoding)
        return row, len(line) + 1

    def range(self, start: tuple[int, int], end: tuple[int, int]) -> types.Range:
        """Convert a pair of 1-based code-point positions to an LSP range."""
        return types.Range(start=self.to_lsp(*start), end=self.to_lsp(*end))
