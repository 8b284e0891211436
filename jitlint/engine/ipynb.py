"""Jupyter notebooks as Python: the code cells joined into one module, and the way back.

The linter sees one module made of the code cells in order (cells share one namespace when a
notebook runs, so a function jitted in one cell and called in another is one program). IPython
magics and shell escapes become ``pass`` placeholders that keep every line where it was. Rows
of that module map back to (cell, row); fixed text maps back to new cell sources, and only the
``source`` values of changed cells are rewritten in the notebook's JSON, byte for byte
otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

SUFFIX = ".ipynb"
_SEPARATOR = "# jitlint:cell-boundary"
_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)pass  # jitlint:magic:(?P<id>\d+)$")
# `%time f()`, `!ls`, `?obj`, `obj?`, `x = !ls`, `x = %env HOME`: IPython, not Python.
_MAGIC = re.compile(r"^\s*([%!?]|[\w.]+\?\??\s*$|[\w.,\s]+=\s*[%!])")


class NotebookError(Exception):
    """The file is not a notebook that can be read: one line, reported as JIT900."""


@dataclass
class Cell:
    """One code cell: its number (1-based among code cells) and where it sits."""

    number: int
    index: int  # position in the notebook's ``cells`` array
    text: str
    first_row: int  # row of its first line in the joined module (0: not in it)
    rows: int
    span: tuple[int, int] | None  # where its ``source`` value sits in the JSON text
    as_list: bool  # source stored as a list of lines (nbformat's way) or one string


@dataclass
class Notebook:
    """A parsed notebook: its JSON text, its code cells and the joined Python module."""

    raw: str
    cells: list[Cell]
    source: str
    magics: dict[int, str] = field(default_factory=dict)

    def locate(self, row: int) -> tuple[Cell, int] | None:
        """Map a row of the joined module to (cell, row in that cell)."""
        for cell in self.cells:
            if cell.first_row and cell.first_row <= row < cell.first_row + cell.rows:
                return cell, row - cell.first_row + 1
        return None

    def cell(self, number: int) -> Cell | None:
        """Return the code cell with this number."""
        return next((c for c in self.cells if c.number == number), None)

    def json_position(self, number: int, row: int, column: int) -> tuple[int, int]:
        """Return the (line, column) in the JSON file of a cell's row and column, 1-based."""
        cell = self.cell(number)
        if cell is None or cell.span is None:
            return 1, 1
        start, end = cell.span
        value = self.raw[start:end]
        offset = start
        if cell.as_list:
            elements = _element_starts(value)
            if 0 < row <= len(elements):
                offset = start + elements[row - 1]
            line_text = _line(cell.text, row)
            offset += 1 + len(json.dumps(line_text[: column - 1], ensure_ascii=False)) - 2
        line = self.raw.count("\n", 0, offset) + 1
        col = offset - (self.raw.rfind("\n", 0, offset) + 1) + 1
        return line, col


def _line(text: str, row: int) -> str:
    lines = text.splitlines()
    return lines[row - 1] if 0 < row <= len(lines) else ""


def _ws(text: str, i: int) -> int:
    """Return the index of the first non-whitespace character at or after ``i``."""
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


_DECODER = json.JSONDecoder()


def _value_end(text: str, i: int) -> int:
    end: int = _DECODER.raw_decode(text, i)[1]
    return end


def _element_starts(value: str) -> list[int]:
    """Offsets of each string element of a JSON array of strings."""
    starts: list[int] = []
    i = _ws(value, 1)
    while i < len(value) and value[i] != "]":
        starts.append(i)
        i = _ws(value, _value_end(value, i))
        if i < len(value) and value[i] == ",":
            i = _ws(value, i + 1)
    return starts


def _members(raw: str, i: int) -> Iterator[tuple[str, int, int]]:
    """Yield (key, value start, value end) for each member of the object opened at ``i``."""
    i = _ws(raw, i + 1)
    while raw[i] != "}":
        key, i = json.decoder.scanstring(raw, i + 1)  # type: ignore[attr-defined]
        start = _ws(raw, _ws(raw, i) + 1)  # past ':'
        end = _value_end(raw, start)
        yield key, start, end
        i = _ws(raw, end)
        if raw[i] == ",":
            i = _ws(raw, i + 1)


def _source_spans(raw: str) -> list[tuple[int, int] | None]:
    """Find where each cell's ``source`` value sits in the notebook's JSON text."""
    for key, start, _ in _members(raw, _ws(raw, 0)):
        if key == "cells" and raw[start] == "[":
            spans: list[tuple[int, int] | None] = []
            i = _ws(raw, start + 1)
            while raw[i] != "]":
                span = None
                if raw[i] == "{":
                    span = next(((a, b) for k, a, b in _members(raw, i) if k == "source"), None)
                spans.append(span)
                i = _ws(raw, _value_end(raw, i))
                if raw[i] == ",":
                    i = _ws(raw, i + 1)
            return spans
    return []


def _text(source: object) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise NotebookError("a cell's `source` is neither a string nor a list of strings")


def _python(nb: dict[str, object]) -> bool:
    metadata = nb.get("metadata")
    if not isinstance(metadata, dict):
        return True
    info = metadata.get("language_info") or metadata.get("kernelspec") or {}
    language = info.get("name" if "language_info" in metadata else "language", "python")
    return not isinstance(language, str) or language.lower() in ("python", "python3", "")


def read(data: bytes) -> Notebook:
    """Parse a notebook's bytes; raise ``NotebookError`` with one line when it cannot be."""
    try:
        raw = data.decode("utf-8-sig")
        nb = json.loads(raw)
    except UnicodeDecodeError as err:
        raise NotebookError(f"invalid notebook: not UTF-8 ({err.reason})") from None
    except json.JSONDecodeError as err:
        raise NotebookError(f"invalid notebook JSON: {err.msg} at line {err.lineno}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("invalid notebook: no `cells` list")
    try:
        spans = _source_spans(raw)
    except (ValueError, IndexError):
        spans = []
    if len(spans) != len(nb["cells"]):
        spans = [None] * len(nb["cells"])
    notebook = Notebook(raw, [], "")
    if not _python(nb):
        return notebook
    parts: list[str] = []
    row = 1
    number = 0
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        text = _text(source)
        lines = text.splitlines()
        as_list = isinstance(source, list)
        if not lines or lines[0].lstrip().startswith("%%"):
            # A cell magic makes the whole cell another language (%%bash, %%writefile).
            notebook.cells.append(Cell(number, index, text, 0, 0, spans[index], as_list))
            continue
        body = _replace_magics(lines, notebook.magics)
        notebook.cells.append(Cell(number, index, text, row, len(body), spans[index], as_list))
        parts.append("\n".join(body) + "\n" + _SEPARATOR + "\n")
        row += len(body) + 1
    notebook.source = "".join(parts)
    return notebook


def _replace_magics(lines: list[str], magics: dict[int, str]) -> list[str]:
    out: list[str] = []
    continued = False
    indent = ""
    for line in lines:
        if continued or _MAGIC.match(line):
            ident = len(magics)
            magics[ident] = line
            if not continued:  # continuation lines stay in the magic's block
                indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}pass  # jitlint:magic:{ident}")
            continued = line.rstrip().endswith("\\")
        else:
            out.append(line)
    return out


def _restore(text: str, magics: dict[int, str]) -> str:
    def put_back(line: str) -> str:
        match = _PLACEHOLDER.match(line)
        return magics[int(match["id"])] if match else line

    return "\n".join(put_back(line) for line in text.split("\n"))


def write_back(notebook: Notebook, fixed: str) -> str:
    """Return the notebook's JSON with the cells of ``fixed`` (a changed joined module)."""
    chunks = fixed.split(_SEPARATOR + "\n")
    linted = [c for c in notebook.cells if c.first_row]
    if len(chunks) != len(linted) + 1 or chunks[-1] != "":
        raise NotebookError("fixes moved a cell boundary; the notebook is left as it was")
    replacements: list[tuple[int, int, str]] = []
    for cell, chunk in zip(linted, chunks, strict=False):
        text = _restore(chunk, notebook.magics)
        if not cell.text.endswith("\n") and text.endswith("\n"):
            text = text[:-1]
        if text == cell.text:
            continue
        if cell.span is None:
            raise NotebookError("cannot find a changed cell in the notebook's JSON")
        start, end = cell.span
        replacements.append((start, end, _styled(notebook.raw[start:end], cell, text)))
    out = notebook.raw
    for start, end, value in sorted(replacements, reverse=True):
        out = out[:start] + value + out[end:]
    return out


def _styled(old: str, cell: Cell, text: str) -> str:
    """Serialize ``text`` as the cell's new source, indented like the old value."""
    if not cell.as_list:
        return json.dumps(text, ensure_ascii=False)
    lines = text.splitlines(keepends=True)
    if not lines:
        return "[]"
    match = re.match(r"\[(\s*)", old)
    lead = match.group(1) if match else ""
    close = old[len(old.rstrip("]").rstrip()) : -1] if old.endswith("]") else ""
    items = [json.dumps(line, ensure_ascii=False) for line in lines]
    if "\n" in lead:
        return "[" + lead + ("," + lead).join(items) + close + "]"
    return "[" + ", ".join(items) + "]"
