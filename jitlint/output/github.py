"""The github format: workflow commands that GitHub Actions shows as annotations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from jitlint.model import Finding
from jitlint.output.sources import Sources


def _escape(text: str, prop: bool = False) -> str:
    # GitHub's workflow-command escaping; properties also escape their separators.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def write(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        props = {
            "file": f.filename,
            "line": f.location.row,
            "col": f.location.column,
            "endLine": f.end_location.row,
            "endColumn": f.end_location.column,
            "title": f"{f.code} {f.name}",
        }
        joined = ",".join(f"{k}={_escape(str(v), prop=True)}" for k, v in props.items())
        out.write(f"::error {joined}::{_escape(f.message)}\n")
