"""Source lines for the formats that show code, and the one-line head every format shares."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from jitlint.analysis.cst_util import NEWLINE, decode_source
from jitlint.engine import ipynb
from jitlint.fixes.apply import applicable
from jitlint.model import Finding


class Sources:
    """Read source lines for findings, once per file; ``texts`` overrides files (stdin)."""

    def __init__(self, texts: Mapping[str, str] | None = None) -> None:
        self._texts = dict(texts or {})
        self._lines: dict[str, list[str]] = {}
        self._notebooks: dict[str, ipynb.Notebook | None] = {}
        self.unsafe = False  # whether unsafe fixes count as applicable for the [*] mark
        self.color = False  # whether heads carry ANSI colours (a terminal, FORCE_COLOR)

    def notebook(self, filename: str) -> ipynb.Notebook | None:
        """Return the parsed notebook ``filename``, or None if it cannot be read."""
        if filename not in self._notebooks:
            try:
                data = self._texts[filename].encode() if filename in self._texts else None
                data = data if data is not None else Path(filename).read_bytes()
                self._notebooks[filename] = ipynb.read(data)
            except (OSError, ipynb.NotebookError):
                self._notebooks[filename] = None
        return self._notebooks[filename]

    def line(self, filename: str, row: int, cell: int | None = None) -> str:
        """Return line ``row`` (1-based) of ``filename`` (or of its ``cell``), or ''."""
        if cell is not None:
            nb = self.notebook(filename)
            found = nb.cell(cell) if nb is not None else None
            cell_lines = NEWLINE.split(found.text) if found is not None else []
            return cell_lines[row - 1] if 0 < row <= len(cell_lines) else ""
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


def place(f: Finding) -> str:
    """Return ``path:row:col``, or ``path:cell N:row:col`` in a notebook."""
    cell = f"cell {f.cell}:" if f.cell is not None else ""
    return f"{f.filename}:{cell}{f.location.row}:{f.location.column}"


def head(f: Finding, unsafe: bool, color: bool = False) -> str:
    """Return ``path:row:col: CODE [*] message``, coloured like ruff's when ``color``."""
    fixable = " [*]" if applicable(f, unsafe) else ""
    if not color:
        return f"{place(f)}: {f.code}{fixable} {f.message}"
    bold, red, cyan, reset = "\x1b[1m", "\x1b[1;31m", "\x1b[36m", "\x1b[0m"
    where = f"{bold}{place(f)}{reset}".replace(":", f"{cyan}:{reset}{bold}")
    return f"{where}{cyan}:{reset} {red}{f.code}{reset}{fixable} {f.message}"


def use_color(stream: object) -> bool:
    """Decide on colour as most tools do: NO_COLOR off, FORCE_COLOR on, else a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def file_region(f: Finding, sources: Sources) -> tuple[int, int, int, int]:
    """Return (line, column, end line, end column) in the file on disk.

    For a notebook cell these are the places in the notebook's JSON where the cell's lines
    are stored, so annotations land on the right line of the file.
    """
    if f.cell is None:
        return f.location.row, f.location.column, f.end_location.row, f.end_location.column
    nb = sources.notebook(f.filename)
    if nb is None:
        return 1, 1, 1, 1
    line, col = nb.json_position(f.cell, f.location.row, f.location.column)
    end_line, end_col = nb.json_position(f.cell, f.end_location.row, f.end_location.column)
    return line, col, end_line, end_col
