"""Lint and fix Jupyter notebooks through the Python engine (see ``jitlint.ipynb``)."""

from __future__ import annotations

from dataclasses import replace

from jitlint.engine import ipynb
from jitlint.engine.fixing import FixOutcome, fix_source
from jitlint.engine.incremental import Session
from jitlint.engine.lint import SYNTAX_ERROR, lint_source
from jitlint.engine.settings import Settings
from jitlint.model import Edit, FileResult, Finding, Fix, Location


def is_notebook(filename: str) -> bool:
    """Tell whether ``filename`` names a Jupyter notebook."""
    return filename.endswith(ipynb.SUFFIX)


def _unreadable(filename: str, err: ipynb.NotebookError) -> FileResult:
    loc = Location(1, 1)
    finding = Finding(SYNTAX_ERROR[0], SYNTAX_ERROR[1], str(err), filename, loc, loc)
    return FileResult(filename, [finding])


def _to_cell(nb: ipynb.Notebook, loc: Location) -> tuple[int, Location] | None:
    found = nb.locate(loc.row)
    if found is None:
        return None
    cell, row = found
    return cell.number, Location(row, loc.column)


def _map(nb: ipynb.Notebook, result: FileResult) -> FileResult:
    """Move findings from rows of the joined module to rows of their cells."""
    findings: list[Finding] = []
    for f in result.findings:
        start = _to_cell(nb, f.location)
        if start is None:
            continue  # on a cell boundary: cannot happen for real findings
        end = _to_cell(nb, f.end_location)
        end_loc = end[1] if end is not None and end[0] == start[0] else start[1]
        fix = f.fix
        if fix is not None:
            edits = []
            for e in fix.edits:
                a, b = _to_cell(nb, e.start), _to_cell(nb, e.end)
                if a is None or b is None or a[0] != b[0]:
                    break
                edits.append(Edit(a[1], b[1], e.content))
            else:
                fix = Fix(fix.title, fix.applicability, tuple(edits))
            if len(edits) != len(fix.edits):
                fix = None
        findings.append(replace(f, location=start[1], end_location=end_loc, fix=fix, cell=start[0]))
    findings.sort(key=lambda f: (f.cell or 0, f.location, f.code))
    return FileResult(result.filename, findings, list(result.errors), result.skipped)


def lint_notebook(
    filename: str, data: bytes, settings: Settings, session: Session | None = None
) -> FileResult:
    """Lint a notebook's code cells; findings carry their cell number and cell rows."""
    try:
        nb = ipynb.read(data)
    except ipynb.NotebookError as err:
        return _unreadable(filename, err)
    return _map(nb, lint_source(filename, nb.source.encode("utf-8"), settings, session=session))


def fix_notebook(filename: str, data: bytes, settings: Settings, *, unsafe: bool) -> FixOutcome:
    """Fix a notebook in memory: only the changed cells' sources change in its JSON."""
    try:
        nb = ipynb.read(data)
    except ipynb.NotebookError as err:
        return FixOutcome(data, data, 0, _unreadable(filename, err))
    outcome = fix_source(filename, nb.source.encode("utf-8"), settings, unsafe=unsafe)
    if not outcome.changed:
        return FixOutcome(data, data, 0, _map(nb, outcome.result))
    try:
        new = ipynb.write_back(nb, outcome.source.decode("utf-8")).encode("utf-8")
    except ipynb.NotebookError as err:
        result = _map(nb, lint_source(filename, nb.source.encode("utf-8"), settings))
        result.errors.append(f"{filename}: {err}")
        return FixOutcome(data, data, 0, result)
    return FixOutcome(data, new, outcome.fixed, lint_notebook(filename, new, settings))


def lint_any(
    filename: str, data: bytes, settings: Settings, session: Session | None = None
) -> FileResult:
    """Lint a Python file or a notebook, by its name (``session``: see ``lint_source``)."""
    if is_notebook(filename):
        return lint_notebook(filename, data, settings, session)
    return lint_source(filename, data, settings, session=session)


def fix_any(filename: str, data: bytes, settings: Settings, *, unsafe: bool) -> FixOutcome:
    """Fix a Python file or a notebook, by its name."""
    if is_notebook(filename):
        return fix_notebook(filename, data, settings, unsafe=unsafe)
    return fix_source(filename, data, settings, unsafe=unsafe)
