"""Silence findings: `# noqa`, `# noqa: CODE` on a line, `# jitlint: noqa` for a file."""

from __future__ import annotations

import re

from jitlint.model import Finding

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
FILE_NOQA = re.compile(r"^\s*#\s*jitlint:\s*noqa\s*$", re.I | re.M)


def filter_noqa(findings: list[Finding], text: str) -> list[Finding]:
    """Drop the findings that a ``# noqa`` comment on their line silences."""
    if not findings or "noqa" not in text:
        return findings
    lines = text.splitlines()
    kept = []
    for f in findings:
        line = lines[f.location.row - 1] if f.location.row <= len(lines) else ""
        match = _NOQA.search(line)
        if match is None:
            kept.append(f)
            continue
        codes = match.group("codes")
        if codes is None:
            continue  # a bare noqa comment silences everything on the line
        listed = {c.upper() for c in re.split(r"[\s,]+", codes) if c}
        if f.code not in listed:
            kept.append(f)
    return kept
