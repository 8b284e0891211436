"""The github format: workflow commands that GitHub Actions shows as annotations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from jitlint.model import Finding
from jitlint.output.sources import Sources, file_region


def _escape(text: str, prop: bool = False) -> str:
    # GitHub's workflow-command escaping; properties also escape their separators.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def write(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        line, col, end_line, end_col = file_region(f, sources)
        props = {
            "file": f.filename,
            "line": line,
            "col": col,
            "endLine": end_line,
            "endColumn": end_col,
            "title": f"{f.code} {f.name}",
        }
        joined = ",".join(f"{k}={_escape(str(v), prop=True)}" for k, v in props.items())
        where = f"cell {f.cell}:{f.location.row}:{f.location.column}: " if f.cell else ""
        out.write(f"::error {joined}::{_escape(where + f.message)}\n")
