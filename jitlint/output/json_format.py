"""The json format: one JSON array of findings with ruff's field names."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from jitlint.model import Finding
from jitlint.output.sources import Sources


def finding_json(f: Finding) -> dict[str, object]:
    """Return the JSON object for one finding (ruff's field names)."""
    fix = None
    if f.fix is not None:
        fix = {
            "message": f.fix.title,
            "applicability": f.fix.applicability.value,
            "edits": [
                {
                    "content": e.content,
                    "location": {"row": e.start.row, "column": e.start.column},
                    "end_location": {"row": e.end.row, "column": e.end.column},
                }
                for e in f.fix.edits
            ],
        }
    return {
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "filename": f.filename,
        "location": {"row": f.location.row, "column": f.location.column},
        "end_location": {"row": f.end_location.row, "column": f.end_location.column},
        "fix": fix,
        "url": f.url,
        # Notebooks: the code cell (1-based, counting code cells); rows count in that cell.
        "cell": f.cell,
        "trace": [
            {"filename": s.filename, "row": s.row, "name": s.name, "transform": s.transform}
            for s in f.trace
        ],
    }


def write(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    json.dump([finding_json(f) for f in findings], out, indent=2)
    out.write("\n")
