"""Turn findings and fixes into LSP diagnostics and text edits, and build `# noqa` edits."""

from __future__ import annotations

import io
import os
import re
import tokenize
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from jitlint import FileResult, Finding, Fix
from jitlint.model import Applicability
from jitlint.server.positions import LineIndex
from jitlint.server.settings import ClientSettings

SOURCE = "jitlint"
# The comment the engine honours: a bare noqa, or noqa followed by a colon and codes.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)


def _range_json(r: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def text_edits(fix: Fix, index: LineIndex) -> list[types.TextEdit]:
    """Convert a fix's edits to LSP text edits."""
    return [
        types.TextEdit(
            range=index.range((e.start.row, e.start.column), (e.end.row, e.end.column)),
            new_text=e.content,
        )
        for e in fix.edits
    ]


def diagnostic(f: Finding, index: LineIndex, client: ClientSettings) -> types.Diagnostic:
    """Convert one finding to a diagnostic; ``data`` carries its fix as LSP edits."""
    data: dict[str, Any] = {"code": f.code, "row": f.location.row}
    if f.fix is not None:
        data["fix"] = {
            "title": f.fix.title,
            "applicability": f.fix.applicability.value,
            "edits": [
                {"range": _range_json(e.range), "newText": e.new_text}
                for e in text_edits(f.fix, index)
            ],
        }
    return types.Diagnostic(
        range=index.range(
            (f.location.row, f.location.column), (f.end_location.row, f.end_location.column)
        ),
        message=f.message,
        severity=client.severity_for(f.code, f.name),
        code=f.code,
        code_description=types.CodeDescription(href=f.url) if f.url else None,
        source=SOURCE,
        related_information=related(f) or None,
        data=data,
    )


def related(f: Finding) -> list[types.DiagnosticRelatedInformation]:
    """Turn a finding's trace path (project analysis) into related locations, entry first.

    Each step is a function on the path from the traced entry point to the finding; its
    location is the function's first line (rows only: the step carries no column).
    """
    if len(f.trace) < 2:
        return []  # a finding in the entry point itself: nothing to point to
    out = []
    for depth, step in enumerate(f.trace):
        path = step.filename
        if not os.path.isabs(path):
            path = os.path.abspath(path)
        uri = from_fs_path(path)
        if uri is None:
            continue
        line = max(step.row - 1, 0)
        where = types.Range(
            start=types.Position(line=line, character=0),
            end=types.Position(line=line + 1, character=0),
        )
        if depth == 0:
            via = f" by {step.transform}" if step.transform else ""
            message = f"traced{via} from `{step.name}`"
        else:
            message = f"which calls `{step.name}`"
        out.append(
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=where), message=message
            )
        )
    return out


def diagnostics(
    result: FileResult, index: LineIndex, client: ClientSettings
) -> list[types.Diagnostic]:
    """Convert a file's findings, and its error lines as errors on the first line."""
    out = [diagnostic(f, index, client) for f in result.findings]
    start = types.Position(line=0, character=0)
    out.extend(
        types.Diagnostic(
            range=types.Range(start=start, end=start),
            message=error,
            severity=types.DiagnosticSeverity.Error,
            source=SOURCE,
        )
        for error in result.errors
    )
    return out


def fix_title(f: Finding) -> str:
    """Title a quick fix; unsafe fixes say so, since they may change what the code does."""
    assert f.fix is not None
    if f.fix.applicability is Applicability.UNSAFE:
        return f"{f.fix.title} ({f.code}, unsafe fix: may change behaviour)"
    return f"{f.fix.title} ({f.code})"


def _comment_allowed(text: str, row: int) -> tuple[bool, tuple[int, int] | None]:
    """Tell whether a comment may end line ``row``; return the span of its comment, if any."""
    comment: tuple[int, int] | None = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] > row:
                break
            if tok.type == tokenize.COMMENT and tok.start[0] == row:
                comment = (tok.start[1], tok.end[1])
            if tok.type in (tokenize.NEWLINE, tokenize.NL) and tok.start[0] == row:
                return True, comment
            if tok.type == tokenize.ENDMARKER:
                return True, comment
    except (tokenize.TokenError, SyntaxError):
        return False, None
    return False, None


def noqa_edit(index: LineIndex, row: int, code: str) -> types.TextEdit | None:
    """Return the edit that adds ``code`` to line ``row``'s noqa comment, or None if it can't.

    A line whose end lies inside a string or after a backslash continuation cannot take a
    comment; a bare ``# noqa`` already silences everything.
    """
    allowed, comment = _comment_allowed(index.text, row)
    if not allowed:
        return None
    line = index.line(row)
    if comment is not None:
        match = _NOQA.search(line, comment[0])
        if match is not None:
            codes = match.group("codes")
            if codes is None or code in codes.upper().replace(",", " ").split():
                return None
            at = (row, match.end("codes") + 1)
            return types.TextEdit(range=index.range(at, at), new_text=f", {code}")
    end = len(line.rstrip()) + 1
    return types.TextEdit(
        range=index.range((row, end), (row, len(line) + 1)), new_text=f"  # noqa: {code}"
    )


def replace_all(old: str, new: str, index: LineIndex) -> types.TextEdit:
    """Return one edit turning ``old`` into ``new``: the changed middle, never half a CRLF."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    if 0 < prefix < len(old) and old[prefix - 1] == "\r" and old[prefix] == "\n":
        prefix -= 1
    cut = len(old) - suffix
    if 0 < cut < len(old) and old[cut] == "\n" and old[cut - 1] == "\r":
        suffix -= 1
        cut += 1
    return types.TextEdit(
        range=index.range(index.location(prefix), index.location(cut)),
        new_text=new[prefix : len(new) - suffix],
    )
