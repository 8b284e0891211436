"""The full format: the concise line, the source line with carets, and the fix title."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from jitlint.model import Finding
from jitlint.output.sources import Sources, head


def write(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        row = f.location.row
        line = sources.line(f.filename, row, f.cell).rstrip()
        start = f.location.column - 1
        end = f.end_location.column - 1 if f.end_location.row == row else len(line)
        # Keep tabs so the carets line up under the code in any terminal.
        pad = "".join(c if c == "\t" else " " for c in line[:start])
        gutter = " " * len(str(row))
        out.write(head(f, sources.unsafe, sources.color) + "\n")
        out.write(f"{gutter} |\n{row} | {line}\n{gutter} | {pad}{'^' * max(end - start, 1)}\n")
        if f.fix is not None:
            out.write(f"{gutter} = help: {f.fix.title} ({f.fix.applicability.value} fix)\n")
        if len(f.trace) > 1:  # reached through calls: say from where
            out.write(f"{gutter} = traced: reached from\n")
            for depth, step in enumerate(f.trace):
                out.write(f"{gutter}     {'  ' * depth}{step.describe()}\n")
        out.write("\n")
