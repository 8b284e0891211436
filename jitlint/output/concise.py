"""The concise format: one clickable `path:line:col: CODE [*] message` line per finding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from jitlint.model import Finding
from jitlint.output.sources import Sources, head


def write(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        out.write(head(f, sources.unsafe, sources.color) + "\n")
